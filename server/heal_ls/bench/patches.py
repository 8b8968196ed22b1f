"""Unified diffs, read: split by file, and the defs whose lines a diff changes (the functions a
fixing commit touched, named as heal-ls names suspects)."""

from __future__ import annotations

import ast
import difflib
import re
from pathlib import Path

from heal_ls.pysource.parse import first_line, qualified_defs

MODULE_LEVEL = "<module>"  # a change outside every def


def split_files(diff: str) -> list[tuple[str, str]]:
    """(path, that file's part of the diff) per `diff --git a/<path> b/<path>` section."""
    parts: list[tuple[str, str]] = []
    for chunk in re.split(r"(?m)^(?=diff --git )", diff):
        match = re.match(r"diff --git a/(\S+) b/(\S+)", chunk)
        if match:
            parts.append((match[2], chunk))
    return parts


def touched_functions(buggy: Path, fixed: Path, diff: str) -> list[str]:
    """`path::qualname` of the innermost def holding each line the diff's files differ in
    between the buggy and the fixed tree (`path::<module>` for a change outside every def), in
    order, each once. Trees, not the diff's line numbers: a patch may apply at an offset."""
    found: list[str] = []
    for path, _ in split_files(diff):
        old, new = buggy / path, fixed / path
        if not path.endswith(".py") or not old.is_file() or not new.is_file():
            continue
        text = old.read_text(encoding="utf-8", errors="replace")
        spans = [
            (first_line(n), n.end_lineno or n.lineno, q) for q, n in qualified_defs(ast.parse(text))
        ]
        for line in sorted(
            differing_lines(text, new.read_text(encoding="utf-8", errors="replace"))
        ):
            holding = [s for s in spans if s[0] <= line <= s[1]]
            name = min(holding, key=lambda s: s[1] - s[0])[2] if holding else MODULE_LEVEL
            if f"{path}::{name}" not in found:
                found.append(f"{path}::{name}")
    return found


def differing_lines(old: str, new: str) -> set[int]:
    """1-based lines of `old` that `new` replaces or deletes, or below which it inserts."""
    lines: set[int] = set()
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            lines.update(range(i1 + 1, i2 + 1))
        elif tag == "insert":
            lines.add(max(i1, 1))  # an insertion belongs with the line above it
    return lines
