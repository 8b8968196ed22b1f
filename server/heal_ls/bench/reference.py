"""Comparing a healed function with the reference fix, and putting the reference into a module.

Kept separate from heal_ls.edit on purpose: the bench judges the heal engine, so it uses its
own small, plain line-based splice to build the reference module.
"""

from __future__ import annotations

import ast
import textwrap


def find_function(tree: ast.Module, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The def node for "f", "Class.method" or "outer.<locals>.inner"."""
    scope: list[ast.stmt] = tree.body
    node: ast.AST | None = None
    for part in [p for p in qualname.split(".") if p != "<locals>"]:
        matches = [n for n in _defs_in(scope) if getattr(n, "name", None) == part]
        if not matches:
            return None
        node = matches[0]
        scope = node.body  # type: ignore[union-attr]
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _defs_in(body: list[ast.stmt]):
    """Defs and classes directly in a body, also inside if/try/with blocks."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield stmt
        else:
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and not isinstance(stmt, ast.expr):
                    yield from _defs_in(inner)


def _line_range(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int]:
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return first, node.end_lineno or node.lineno


def function_text(module_text: str, qualname: str) -> str | None:
    """The function's source dedented to column 0, or None when it is not in the module."""
    node = find_function(ast.parse(module_text), qualname)
    if node is None:
        return None
    first, last = _line_range(node)
    lines = module_text.splitlines(keepends=True)[first - 1 : last]
    return textwrap.dedent("".join(lines))


def with_function(module_text: str, qualname: str, new_def: str) -> str:
    """The module with the function replaced by new_def, indented to the old def's column."""
    node = find_function(ast.parse(module_text), qualname)
    if node is None:
        raise ValueError(f"{qualname} not found")
    first, last = _line_range(node)
    lines = module_text.splitlines(keepends=True)
    newline = "\r\n" if lines[first - 1].endswith("\r\n") else "\n"
    indent = lines[first - 1][: len(lines[first - 1]) - len(lines[first - 1].lstrip())]
    body = textwrap.dedent(new_def).splitlines()
    new_lines = [(indent + line if line.strip() else "") + newline for line in body]
    return "".join(lines[: first - 1] + new_lines + lines[last:])


def normalised(function_source: str) -> str | None:
    try:
        return ast.dump(ast.parse(textwrap.dedent(function_source)))
    except SyntaxError:
        return None


def same_function(a: str, b: str) -> bool:
    """True when the two defs have the same normalised AST (formatting and comments ignored)."""
    key = normalised(a)
    return key is not None and key == normalised(b)
