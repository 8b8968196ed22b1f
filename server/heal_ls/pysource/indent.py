"""Re-indent a def written at column 0 to where it will sit in a module, block by block.

Used by edit.splice: the model's answer may indent with 2 spaces, the module with tabs.
"""

from __future__ import annotations

import io
import tokenize
from bisect import bisect_right


def reindent(source: str, base: str, unit: str) -> list[str]:
    """Re-indent a def written at column 0 to `base`, one `unit` per block level.

    Statement lines get base + unit * depth (their depth comes from the tokenizer, so the answer's
    own indent width does not matter). Continuation lines and lines inside multi-line strings keep
    their offset relative to their statement; comment lines follow the statement below them.
    Raises tokenize.TokenError or SyntaxError when the source cannot be tokenized.
    """
    lines = source.rstrip().split("\n")
    kinds = _row_kinds(source)
    old = {row: leading_space(lines[row - 1]) for row, kind in kinds.items() if kind != "comment"}
    new = {row: base + unit * int(kind) for row, kind in kinds.items() if kind != "comment"}
    rows = sorted(old)
    out, owner = [], 0
    for row, line in enumerate(lines, start=1):
        kind = kinds.get(row)
        if kind == "comment":
            after = rows[bisect_right(rows, row)] if bisect_right(rows, row) < len(rows) else owner
            ref = after if after and leading_space(line) == old[after] else owner
        else:
            ref = owner = row if kind is not None else owner
        if line and ref and line.startswith(old[ref]):
            line = new[ref] + line[len(old[ref]) :]
        out.append(line)
    return out


def leading_space(line: str) -> str:
    """The spaces, tabs and form feeds a line starts with."""
    return line[: len(line) - len(line.lstrip(" \t\f"))]


def _row_kinds(source: str) -> dict[int, int | str]:
    """Rows that start a statement -> block depth; comment-only rows -> "comment"."""
    kinds: dict[int, int | str] = {}
    depth, after_newline = 0, True
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        kind = tok.type
        if kind in (tokenize.INDENT, tokenize.DEDENT):
            depth += 1 if kind == tokenize.INDENT else -1
        elif kind == tokenize.NEWLINE:
            after_newline = True
        elif kind == tokenize.COMMENT:
            if after_newline:
                kinds.setdefault(tok.start[0], "comment")
        elif kind not in (tokenize.NL, tokenize.ENDMARKER):
            if after_newline:
                kinds[tok.start[0]] = depth
            after_newline = False
    return kinds
