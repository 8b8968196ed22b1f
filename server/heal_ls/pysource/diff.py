"""Unified diffs that keep the texts' own line endings."""

from __future__ import annotations

import difflib
import re


def unified_diff(path: str, before: str, after: str) -> str:
    """A unified diff with a/ b/ headers; line endings are kept as they are in the texts."""
    name = path.replace("\\", "/").lstrip("/")
    lines = difflib.unified_diff(
        _lines(before), _lines(after), fromfile=f"a/{name}", tofile=f"b/{name}"
    )
    out = []
    for line in lines:
        out.append(
            line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n"
        )
    return "".join(out)


def _lines(text: str) -> list[str]:
    return re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)
