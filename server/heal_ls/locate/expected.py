"""The exception a test expects, read from the test line: when the call under
`with pytest.raises(ValueError):` (or `self.assertRaises(ValueError)`) crashes deeper with
another exception (`IndexError` on an empty list), the check the test is about is missing: the
function that should have refused the input is one that already raises what the test expects
for other inputs (it validates them), not the line that tripped over the input later."""

from __future__ import annotations

import ast
import builtins
import re

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


# pytest.raises' words when the block ended without the exception, then unittest's
# assertRaises' (`ValueError not raised`, `... not raised by <lambda>`, `... not raised by
# <function f at 0x...>`, and with the check's msg= after ` : `)
_DID_NOT_RAISE = re.compile(r"^DID NOT RAISE (.+)$", re.S)
_NOT_RAISED = re.compile(r"^(\w+) not raised(?: by .+?)?(?: : .*)?$", re.S)


def not_raised(message: str) -> set[str]:
    """The class names (last dotted part) a `pytest.raises`/`assertRaises` check expected and
    did not get (`DID NOT RAISE <class 'h2.exceptions.ProtocolError'>`, `TAKHeaderError not
    raised`), but Python's own (`OSError`, `AttributeError`: raised for countless reasons,
    they name no one refusal); empty for any other failure."""
    text = message.strip()
    names: set[str] = set()
    if found := _DID_NOT_RAISE.match(text):
        names = {n.rsplit(".", 1)[-1] for n in re.findall(r"<class '([\w.]+)'>", found[1])}
    elif found := _NOT_RAISED.match(text):
        names = {found[1]}
    return {name for name in names if not hasattr(builtins, name)}


# What a test wraps around code it expects to warn (`pytest.warns`, `self.assertWarns`), or that
# records the warnings it then counts (`with warnings.catch_warnings(record=True) as w:`).
WARNS = {"warns", "assertWarns", "assertWarnsRegex", "deprecated_call", "catch_warnings"}
WARNS_FAILED = ("DID NOT WARN", "not triggered")  # pytest.warns', unittest's assertWarns' words


def expects_warning(tree: ast.Module, line: int, message: str) -> bool:
    """Did the check failing at `line` count the warnings a block around it recorded (`assert
    len(w) == 1` under `catch_warnings(record=True) as w`), or did a `pytest.warns` or
    `assertWarns` block holding it fail because no warning came? A check of another value
    inside such a block is about that value."""
    none_came = message.strip().startswith(WARNS_FAILED[0]) or message.strip().endswith(
        WARNS_FAILED[1]
    )
    for node in statements_holding(tree, line):
        if not isinstance(node, (ast.With, ast.AsyncWith)) or not node.body:
            continue
        inside = node.body[0].lineno <= line  # (no warning came: raised at the `with` line)
        for item in node.items:
            call = item.context_expr
            if not isinstance(call, ast.Call) or name_of(call.func) not in WARNS:
                continue
            held = item.optional_vars
            if none_came or (
                inside and isinstance(held, ast.Name) and held.id in _read_on(tree, line)
            ):
                return True
    return False


def _read_on(tree: ast.Module, line: int) -> set[str]:
    """The names the innermost statement at `line` reads."""
    found = [s for s in statements_holding(tree, line) if s.lineno == line]
    return {n.id for n in ast.walk(found[-1]) if isinstance(n, ast.Name)} if found else set()


def warns(index: ModuleIndex | None, node: FunctionNode, helpers: set[str]) -> bool:
    """Does the def issue a warning itself (`warnings.warn(...)`) or call one of `helpers`, the
    defs that do (`self._pickle_warning(obj)`)?"""
    found = index.def_node(node.def_line) if index is not None else None
    if found is None:
        return False
    called = {name_of(c.func) for c in ast.walk(found) if isinstance(c, ast.Call)}
    return bool(called & ({"warn", "warn_explicit"} | helpers))


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
