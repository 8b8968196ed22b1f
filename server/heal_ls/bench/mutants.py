"""Known single-function bugs for the localisation benchmark, made by small AST mutations.

Each mutant changes one expression on one line of one function (nested defs included) and
records which function holds it. The choice is deterministic (ordered by a hash of the site),
so the same package version always yields the same bugs.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass
from typing import Any

from heal_ls.locate.index import FunctionNode, index_source

_SWAPS: dict[type, Any] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult,
    ast.And: ast.Or, ast.Or: ast.And,
}  # fmt: skip


@dataclass(frozen=True)
class Mutant:
    path: str  # relative to the package root, `/` separated
    qualname: str  # the function that holds the bug
    kind: str  # cmp, arith, bool, const, cond, ret
    line: int
    old: str  # the line before
    new: str  # the line after

    @property
    def nested(self) -> bool:
        return ".<locals>." in self.qualname

    @property
    def name(self) -> str:
        return f"{self.path}::{self.qualname}:{self.line}:{self.kind}"

    def apply(self, text: str) -> str:
        lines = text.splitlines(keepends=True)
        if lines[self.line - 1] != self.old:
            raise ValueError(f"{self.name}: the line changed since the mutant was made")
        lines[self.line - 1] = self.new
        return "".join(lines)


def mutants_of(path: str, text: str) -> list[Mutant]:
    """Every one-line mutation site in the functions of `text`, in a stable pseudo-random order."""
    index = index_source(text)
    if index.tree is None:
        return []
    lines = text.splitlines(keepends=True)
    found = []
    for node in ast.walk(index.tree):
        for kind, target, replacement in _mutations(node):
            line = target.lineno
            if line != target.end_lineno or _in_def_header(index, line):
                continue
            function = _owner(index.functions, line)
            new = _replace(lines[line - 1], target, replacement)
            if function is None or new is None or new == lines[line - 1]:
                continue
            found.append(Mutant(path, function.qualname, kind, line, lines[line - 1], new))
    unique = {m.name: m for m in found}
    return sorted(unique.values(), key=lambda m: hashlib.sha1(m.name.encode()).hexdigest())


def _mutations(node: Any):
    """(kind, node to replace, replacement source) for the mutations that apply to `node`."""
    if isinstance(node, ast.Compare) and type(node.ops[0]) in _SWAPS:
        changed = ast.Compare(
            node.left, [_SWAPS[type(node.ops[0])](), *node.ops[1:]], node.comparators
        )
        yield "cmp", node, ast.unparse(changed)
    elif isinstance(node, ast.BinOp) and type(node.op) in _SWAPS:
        yield (
            "arith",
            node,
            f"({ast.unparse(ast.BinOp(node.left, _SWAPS[type(node.op)](), node.right))})",
        )
    elif isinstance(node, ast.BoolOp):
        yield "bool", node, f"({ast.unparse(ast.BoolOp(_SWAPS[type(node.op)](), node.values))})"
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        yield "const", node, str(node.value + 1)
    elif isinstance(node, (ast.If, ast.While)) and node.test.lineno == node.lineno:
        yield "cond", node.test, f"not ({ast.unparse(node.test)})"
    elif isinstance(node, ast.Return) and not _is_none(node.value):
        yield "ret", node.value, "None"


def _is_none(node: ast.AST | None) -> bool:
    return node is None or (isinstance(node, ast.Constant) and node.value is None)


def _replace(line: str, node: Any, replacement: str) -> str | None:
    """`line` with the node's source (byte columns, one line) replaced; None if it is unclear."""
    raw = line.encode("utf-8")
    start, end = node.col_offset, node.end_col_offset
    if end is None or end > len(raw):
        return None
    return (raw[:start] + replacement.encode("utf-8") + raw[end:]).decode("utf-8")


def _owner(functions: list[FunctionNode], line: int) -> FunctionNode | None:
    inside = [f for f in functions if f.def_line < line <= f.end_line]
    return max(inside, key=lambda f: f.start_line, default=None)


def _in_def_header(index, line: int) -> bool:
    return any(f.start_line <= line <= f.def_line for f in index.functions)
