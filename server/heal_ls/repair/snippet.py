"""One function's source text plus exact node positions, so a mutation is a token-precise text edit.

Edits are made on the text itself (never by unparsing), so everything outside the mutated
expression keeps its formatting and the user sees one small change. An indented def (a method)
is parsed behind an `if True:` prefix instead of being dedented, so columns never move.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from heal_ls.pysource.parse import DEF_TYPES, Def

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\n|\r)|[^\r\n]+$")
_PREFIX = "if True:\n"


@dataclass(frozen=True)
class Edit:
    start: int  # offsets into Snippet.text (code points)
    end: int
    text: str


@dataclass(frozen=True)
class Mutation:
    kind: str
    edits: tuple[Edit, ...]
    line: int  # line of the mutated node, counted like the function source (1 = first line)
    cost: float  # lower is more likely; the search adds the distance to the focus lines
    shape: str = ""  # a known overfitting shape (repair/shapes.py), tried after other edits


class Snippet:
    """A parsed function source; raises SyntaxError or ValueError when it is not one def."""

    def __init__(self, source: str):
        self.prefix = _PREFIX if source[:1] in (" ", "\t") else ""
        self.text = self.prefix + source
        tree = ast.parse(self.text)
        body = tree.body[0].body if self.prefix else tree.body  # type: ignore[attr-defined]
        if len(body) != 1 or not isinstance(body[0], DEF_TYPES):
            raise ValueError("expected exactly one function definition")
        self.tree = tree
        self.func: Def = body[0]
        self.newline = "\r\n" if "\r\n" in source else "\n"
        self._lines = _LINE.findall(self.text)
        self._starts = [0]
        for line in self._lines:
            self._starts.append(self._starts[-1] + len(line))

    # -- positions -------------------------------------------------------------------------
    def offset(self, lineno: int, col_byte: int) -> int:
        """Code-point offset of an ast (lineno, utf-8 byte column) position."""
        line = self._lines[lineno - 1]
        return self._starts[lineno - 1] + len(line.encode("utf-8")[:col_byte].decode("utf-8"))

    def span(self, node: Any) -> tuple[int, int]:
        start = self.offset(node.lineno, node.col_offset)
        return start, self.offset(node.end_lineno, node.end_col_offset)

    def source_of(self, node: Any) -> str:
        start, end = self.span(node)
        return self.text[start:end]

    def line_start(self, lineno: int) -> int:
        return self._starts[lineno - 1]

    def indent_of(self, lineno: int) -> str:
        line = self._lines[lineno - 1]
        return line[: len(line) - len(line.lstrip(" \t"))]

    def user_line(self, node: Any) -> int:
        """The node's line counted from the function source's first line (1-based)."""
        return node.lineno - (1 if self.prefix else 0)

    def nodes(self):
        """Every node inside the function: decorators, arguments and body."""
        return (n for n in ast.walk(self.func) if n is not self.func)

    # -- applying --------------------------------------------------------------------------
    def apply(self, edits: tuple[Edit, ...]) -> str:
        """The function source with the edits made (the parse prefix removed again)."""
        text = self.text
        for edit in sorted(edits, key=lambda e: e.start, reverse=True):
            text = text[: edit.start] + edit.text + text[edit.end :]
        return text[len(self.prefix) :]


def overlaps(a: tuple[Edit, ...], b: tuple[Edit, ...]) -> bool:
    """True when two edit sets touch the same text (insertions at one point count too)."""
    for x in a:
        for y in b:
            if x.start < y.end and y.start < x.end:
                return True
            if x.start == y.start or x.end == y.end:
                return True
    return False


def between(snippet: Snippet, left_end: int, right_start: int) -> tuple[int, int] | None:
    """The span of the operator token(s) between two operands, skipping blanks and parentheses."""
    segment = snippet.text[left_end:right_start]
    if "#" in segment:
        return None
    skip = " \t\r\n\\()"
    i, j = 0, len(segment)
    while i < j and segment[i] in skip:
        i += 1
    while j > i and segment[j - 1] in skip:
        j -= 1
    return (left_end + i, left_end + j) if i < j else None


ATOMIC = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.List, ast.Tuple)
_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


def plus(snippet: Snippet, node: ast.AST, delta: str) -> str:
    """Source of `node <delta>` (e.g. delta "+ 1"), parenthesising only when precedence needs it."""
    text = snippet.source_of(node)
    simple = isinstance(node, ATOMIC) or (
        isinstance(node, ast.BinOp) and isinstance(node.op, _ARITH)
    )
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        simple = True
    return f"{text} {delta}" if simple else f"({text}) {delta}"
