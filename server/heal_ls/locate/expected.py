"""The exception a test expects, read from the test line: when the call under
`with pytest.raises(ValueError):` (or `self.assertRaises(ValueError)`) crashes deeper with
another exception (`IndexError` on an empty list), the check the test is about is missing: the
function that should have refused the input is one that already raises what the test expects
for other inputs (it validates them), not the line that tripped over the input later."""

from __future__ import annotations

import ast

from heal_ls.locate.index import FunctionNode, ModuleIndex
from heal_ls.pysource.parse import name_of, statements_holding

RAISES = {"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp"}
RAISES |= {"failUnlessRaises"}  # unittest's old name for assertRaises (until 3.12)


def expected_exceptions(tree: ast.Module, line: int) -> set[str]:
    """The class names (last dotted part) a `with pytest.raises(E)`/`assertRaises(E)` block
    holding `line` expects, or its callable form on the line (`self.assertRaises(E, p.parse,
    "", on_error=print)`), and the names those are imported as (`error as ID3Error`: error too);
    empty when the line is in no such block or call."""
    found: set[str] = set()
    for node in statements_holding(tree, line):
        call = node.value if isinstance(node, ast.Expr) else None
        if isinstance(call, ast.Call) and name_of(call.func) in RAISES and len(call.args) > 1:
            found |= _class_names(call.args[0])  # the callable form: E, then what to call
        if not isinstance(node, (ast.With, ast.AsyncWith)) or not node.body:
            continue
        start, end = node.body[0].lineno, node.end_lineno or node.lineno
        if not start <= line <= end:
            continue
        for item in node.items:
            call = item.context_expr
            if isinstance(call, ast.Call) and name_of(call.func) in RAISES and call.args:
                found |= _class_names(call.args[0])
    return found | {imported for name in found if (imported := _aliases(tree).get(name))}


def _aliases(tree: ast.Module) -> dict[str, str]:
    """The names the test module imports under another name (`from m import error as
    ID3Error`: ID3Error -> error): the code it calls raises the class by its own name."""
    return {
        alias.asname: alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname
    }


def raises_any(index: ModuleIndex | None, node: FunctionNode, names: set[str]) -> bool:
    """Does the def raise one of these exception classes (by name) somewhere in its own body,
    or build one (`six.raise_from(ValueError(msg), e)`: an exception is built to be raised)?"""
    found = index.def_node(node.def_line) if index is not None else None
    if found is None:
        return False
    for raised in ast.walk(found):
        if isinstance(raised, ast.Raise) and raised.exc is not None:
            exc = raised.exc.func if isinstance(raised.exc, ast.Call) else raised.exc
            if name_of(exc) in names:
                return True
        elif isinstance(raised, ast.Call) and name_of(raised.func) in names:
            return True
    return False


def _class_names(node: ast.AST) -> set[str]:
    elements = node.elts if isinstance(node, ast.Tuple) else [node]
    return {name for e in elements if (name := name_of(e))}
