"""Parse helpers shared by every part that walks a module: ONE qualname walker, a def's first line.

Qualnames follow Python's own `__qualname__` rules (`Class.method`, `outer.<locals>.inner`), and
defs are found wherever a statement may hold them: under `if`, `try`/`except`/`else`/`finally`,
`with`, loops and `match` cases, not only directly in a module or class body.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

Def = ast.FunctionDef | ast.AsyncFunctionDef
DEF_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef)


def qualified_defs(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, Def]]:
    """Yield (qualname, def node) for every def, outermost first, in source order.

    Only statement blocks are walked: defs cannot hide inside expressions, and skipping them
    makes this ten times cheaper than ast.walk on big modules.
    """
    for stmt in statements(tree):
        if isinstance(stmt, DEF_TYPES):
            yield prefix + stmt.name, stmt
            yield from qualified_defs(stmt, prefix + stmt.name + ".<locals>.")
        elif isinstance(stmt, ast.ClassDef):
            yield from qualified_defs(stmt, prefix + stmt.name + ".")
        else:
            yield from qualified_defs(stmt, prefix)


def statements(node: ast.AST) -> Iterator[ast.stmt]:
    """The statements directly inside a node's blocks (body, else, finally, handlers, cases)."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if isinstance(block, list):
            yield from block
    for inner in getattr(node, "handlers", ()) or getattr(node, "cases", ()):
        yield from inner.body


def first_line(node: ast.AST) -> int:
    """The line a def (or class) starts on: its first decorator's, else the `def` line."""
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno] + [d.lineno for d in decorators])  # type: ignore[attr-defined]
