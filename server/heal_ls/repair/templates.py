"""Templates that add code: `max(0, ...)`, a missing return, `while True` -> `while x`,
`[]` -> `[[]]`, slices of a sequence. Shared helpers for guards.py and statements.py too."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from heal_ls.pysource.parse import Def
from heal_ls.repair.snippet import Edit, Mutation, Snippet
from heal_ls.repair.values import scope_names


def own_nodes(func: Def):
    """Nodes of the function, not descending into nested functions or classes."""
    todo = list(ast.iter_child_nodes(func))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))


def params_of(func: Def) -> list[str]:
    args = func.args.posonlyargs + func.args.args + func.args.kwonlyargs
    return [a.arg for a in args if a.arg not in ("self", "cls")]


def body_start(snip: Snippet) -> ast.stmt | None:
    """The first statement after the docstring, when it starts its own line."""
    body = snip.func.body
    first = body[1] if len(body) > 1 and is_docstring(body[0]) else body[0]
    if first.lineno == snip.func.lineno:
        return None  # `def f(x): return x` - no room for a new line
    return first


def is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


def indent_unit(snip: Snippet, body_indent: str) -> str:
    outer = snip.indent_of(snip.func.lineno)
    extra = body_indent[len(outer) :] if body_indent.startswith(outer) else ""
    return extra or "    "


def is_recursive(snip: Snippet) -> bool:
    name = snip.func.name
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
        for n in own_nodes(snip.func)
    )


def clamps(snip: Snippet) -> Iterator[Mutation]:
    """`x = a + b` -> `x = max(0, a + b)` / `max(x, a + b)` / `min(x, a + b)`."""
    for node in own_nodes(snip.func):
        if not isinstance(node, (ast.Assign, ast.Return)) or node.value is None:
            continue
        value = node.value
        start, end = snip.span(value)
        text, line = snip.source_of(value), snip.user_line(node)
        if isinstance(value, ast.BinOp):
            yield Mutation("clamp", (Edit(start, end, f"max(0, {text})"),), line, 3.0)
        targets = getattr(node, "targets", [])
        if len(targets) == 1 and isinstance(targets[0], ast.Name):
            name = targets[0].id
            for fn, cost in (("max", 3.3), ("min", 3.5)):
                yield Mutation("clamp", (Edit(start, end, f"{fn}({name}, {text})"),), line, cost)


def returns(snip: Snippet) -> Iterator[Mutation]:
    """A missing `return`: the last expression returned, or a local or parameter returned."""
    own = list(own_nodes(snip.func))
    if any(isinstance(n, ast.Return) and n.value is not None for n in own):
        for node in own:  # `return [] ` -> `return [[]]`
            value = getattr(node, "value", None)
            if isinstance(node, ast.Return) and isinstance(value, ast.List) and not value.elts:
                start, end = snip.span(value)
                line = snip.user_line(node)
                yield Mutation("return", (Edit(start, end, "[[]]"),), line, 2.6)
                for p in params_of(snip.func):
                    yield Mutation("return", (Edit(start, end, f"[{p}]"),), line, 3.0)
        return
    last = snip.func.body[-1]
    line = snip.user_line(last)
    if isinstance(last, ast.Expr) and not is_docstring(last):
        start = snip.span(last)[0]
        yield Mutation("return", (Edit(start, start, "return "),), line, 0.5)
    if last.lineno == snip.func.lineno:
        return
    indent = snip.indent_of(snip.func.body[0].lineno)
    end = snip.span(last)[1]
    candidates = list(reversed(scope_names(snip.func)))
    for rank, name in enumerate(candidates):
        edit = Edit(end, end, f"{snip.newline}{indent}return {name}")
        yield Mutation("return", (edit,), line, 0.6 + 0.1 * rank)


def loops_and_slices(snip: Snippet) -> Iterator[Mutation]:
    """`while True` -> `while queue`; `for x in arr` -> `arr[k:]`; `f(a[1:], b)` -> `b[1:]`."""
    scope = scope_names(snip.func)
    for node in own_nodes(snip.func):
        if isinstance(node, ast.While) and isinstance(node.test, ast.Constant):
            start, end = snip.span(node.test)
            for name in scope:
                yield Mutation("loop", (Edit(start, end, name),), snip.user_line(node), 3.0)
        sequences = []
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Name):
            sequences = [node.iter]
        elif isinstance(node, ast.Call) and _is_self_call(snip, node):
            sequences = [a for a in node.args if isinstance(a, ast.Name)]
        for seq in sequences:
            start, end = snip.span(seq)
            bounds = ["1"] + [n for n in scope if n != seq.id]
            for rank, lower in enumerate(bounds):
                edit = Edit(end, end, f"[{lower}:]")
                yield Mutation("slice", (edit,), snip.user_line(seq), 3.2 + 0.1 * rank)
            yield Mutation("slice", (Edit(end, end, "[:-1]"),), snip.user_line(seq), 3.4)


def _is_self_call(snip: Snippet, node: ast.Call) -> bool:
    return isinstance(node.func, ast.Name) and node.func.id == snip.func.name


GENERATORS = [clamps, returns, loops_and_slices]
