"""Guards and base cases added at the top of the body: `if not xs: return 0`, `if n == 0: return 1`.

Recursive functions get base cases on the parameters that shrink in the recursive call first,
shaped by how the parameter is used (a number meets `- 1`, a sequence is sliced or indexed).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from heal_ls.repair.snippet import Edit, Mutation, Snippet
from heal_ls.repair.templates import body_start, indent_unit, is_recursive, own_nodes, params_of


def _has_condition(snip: Snippet) -> bool:
    kinds = (ast.If, ast.IfExp, ast.While, ast.BoolOp, ast.Try, ast.comprehension)
    return any(isinstance(n, kinds) for n in own_nodes(snip.func))


def _shrinkingparams_of(snip: Snippet) -> list[str]:
    """Parameters passed changed to the recursive call (`n - 1`, `xs[1:]`): base case material."""
    found = []
    for node in own_nodes(snip.func):
        called = node.func if isinstance(node, ast.Call) else None
        if isinstance(called, ast.Name) and called.id == snip.func.name:
            for arg in node.args:
                if not isinstance(arg, ast.Name):
                    found += [n.id for n in ast.walk(arg) if isinstance(n, ast.Name)]
    return found


def _cases(p: str, kind: str, recursive: bool) -> list[tuple[str, str]]:
    """(condition, returned value) pairs for a guard on parameter p, likeliest first."""
    plain = [(f"not {p}", v) for v in (p, "None", "0", "[]")]
    if not recursive:
        return plain
    numeric = [(f"{p} == 0", "1"), (f"{p} <= 0", "0"), (f"{p} == 0", "0"), (f"{p} <= 1", p)]
    numeric += [(f"{p} < 0", "0")]
    sequence = [(f"not {p}", p), (f"len({p}) <= 1", p), (f"not {p}", "[]"), (f"not {p}", "0")]
    if kind == "number":
        return numeric + plain
    if kind == "sequence":
        return sequence + plain
    return plain[:1] + sequence[1:2] + numeric + plain[1:]


def _kind_of(snip: Snippet, p: str) -> str:
    """ "number" when p meets arithmetic, "sequence" when it is sliced, indexed or measured."""
    for node in own_nodes(snip.func):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            sides = (node.left, node.right)
            if any(isinstance(x, ast.Name) and x.id == p for x in sides) and any(
                isinstance(x, ast.Constant) and isinstance(x.value, int) for x in sides
            ):
                return "number"
        value = node.value if isinstance(node, ast.Subscript) else None
        if isinstance(value, ast.Name) and value.id == p:
            return "sequence"
    return "unknown"


def guards(snip: Snippet) -> Iterator[Mutation]:
    """`if not x: return x` at the top of the body; base cases first for recursive functions."""
    first = body_start(snip)
    if first is None:
        return
    indent = snip.indent_of(first.lineno)
    unit, nl = indent_unit(snip, indent), snip.newline
    at = snip.line_start(first.lineno)
    recursive = is_recursive(snip)
    base = 3.0 if recursive else 3.6
    if recursive and not _has_condition(snip):
        base = 0.8  # recursion with no condition at all: the base case is missing
    shrinking = _shrinkingparams_of(snip) if recursive else []
    for p in params_of(snip.func):
        cost = base if p in shrinking or not shrinking else base + 0.5
        for rank, (cond, value) in enumerate(_cases(p, _kind_of(snip, p), recursive)):
            text = f"{indent}if {cond}:{nl}{indent}{unit}return {value}{nl}"
            edit = Edit(at, at, text)
            yield Mutation("guard", (edit,), snip.user_line(first), cost + 0.1 * rank)


def none_checks(snip: Snippet) -> Iterator[Mutation]:
    """`if x.next is None:` -> `if x is None or x.next is None:`; `while x.ok:` ->
    `while x is not None and x.ok:`."""
    for node in own_nodes(snip.func):
        if not isinstance(node, (ast.If, ast.While)):
            continue
        owners = [
            n.value.id
            for n in ast.walk(node.test)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
        ]
        start, end = snip.span(node.test)
        test = snip.source_of(node.test)
        if isinstance(node.test, (ast.BoolOp, ast.IfExp, ast.NamedExpr)):
            test = f"({test})"
        for owner in dict.fromkeys(owners):
            if isinstance(node, ast.If):
                new = f"{owner} is None or {test}"
            else:  # a loop goes on only while the owner exists
                new = f"{owner} is not None and {test}"
            yield Mutation("none-check", (Edit(start, end, new),), snip.user_line(node), 3.0)


GENERATORS = [guards, none_checks]
