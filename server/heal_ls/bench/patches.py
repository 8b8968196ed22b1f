"""Unified diffs, read: split by file, the defs and classes whose lines a diff changes (the
functions a fixing commit touched, named as heal-ls names suspects; a class it adds a member
to), and one file's change carried onto another version of that file by a 3-way merge."""

from __future__ import annotations

import ast
import difflib
import re
import subprocess
import tempfile
from pathlib import Path

from heal_ls.pysource.parse import first_line, qualified_nodes

MODULE_LEVEL = "<module>"  # a change outside every def and class


def split_files(diff: str) -> list[tuple[str, str]]:
    """(path, that file's part of the diff) per `diff --git a/<path> b/<path>` section."""
    parts: list[tuple[str, str]] = []
    for chunk in re.split(r"(?m)^(?=diff --git )", diff):
        match = re.match(r"diff --git a/(\S+) b/(\S+)", chunk)
        if match:
            parts.append((match[2], chunk))
    return parts


def touched_functions(buggy: Path, fixed: Path, diff: str) -> list[str]:
    """`path::qualname` of the innermost def or class holding each line the diff's files differ
    in between the buggy and the fixed tree (`path::<module>` for a change outside every def and
    class), in order, each once. Trees, not the diff's line numbers: a patch may apply at an
    offset."""
    found: list[str] = []
    for path, _ in split_files(diff):
        old, new = buggy / path, fixed / path
        if not path.endswith(".py") or not old.is_file() or not new.is_file():
            continue
        text = old.read_text(encoding="utf-8", errors="replace")
        for name in changed_names(text, new.read_text(encoding="utf-8", errors="replace")):
            if f"{path}::{name}" not in found:
                found.append(f"{path}::{name}")
    return found


def changed_names(old: str, new: str) -> list[str]:
    """The qualnames of `old`'s defs and classes that `new` changes, in the order of `old`'s
    lines: a line replaced or deleted belongs to the innermost one holding it. A line put in
    belongs to the innermost one holding it in `new`, leaving out those put in whole: a new
    method is a change to its class (`<module>` for a new top-level def), not to the def it
    was put after. Lines inserted where that holder is new too (a def split in two) belong
    with the line above."""
    before, after = _spans(old), _spans(new)
    known = {q for _, _, q in before} | {MODULE_LEVEL}
    lines = new.splitlines()
    named: list[tuple[int, str]] = []
    matcher = difflib.SequenceMatcher(None, old.splitlines(), lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            named += [(line, _innermost(before, line)) for line in range(i1 + 1, i2 + 1)]
        if tag in ("replace", "insert"):
            put = [j for j in range(j1 + 1, j2 + 1) if lines[j - 1].strip()]
            holders = {_innermost(after, j, new_between=(j1 + 1, j2)) for j in put}
            above = max(i1, 1)
            if tag == "insert" and (not put or not holders <= known):
                named.append((above, _innermost(before, above)))
            # (a replace's new lines come after its old ones)
            named += [(max(i2, 1), h) for h in sorted(holders) if h in known]
    return list(dict.fromkeys(name for _, name in sorted(named, key=lambda n: n[0])))


def _spans(text: str) -> list[tuple[int, int, str]]:
    tree = ast.parse(text)
    return [(first_line(n), n.end_lineno or n.lineno, q) for q, n in qualified_nodes(tree)]


def _innermost(spans, line: int, new_between: tuple[int, int] = (0, -1)) -> str:
    """The qualname of the shortest span holding `line` and not lying within `new_between`."""
    holding = [
        s
        for s in spans
        if s[0] <= line <= s[1] and not new_between[0] <= s[0] <= s[1] <= new_between[1]
    ]
    return min(holding, key=lambda s: s[1] - s[0])[2] if holding else MODULE_LEVEL


def merged_patch(path: str, ours: bytes, base: bytes, theirs: bytes) -> str | None:
    """The diff of `path` from `ours` to `ours` plus the change `base` -> `theirs`, merged with
    `git merge-file` (3-way: lines `ours` changed since `base` may sit in the change's context,
    where a plain patch would not apply); "" when `ours` has the change already (a fix
    backported before the release), None when the merge conflicts.
    CRLF lines in `ours` are merged as LF: the diff then applies to it ignoring whitespace."""
    ours = ours.replace(b"\r\n", b"\n")
    with tempfile.TemporaryDirectory(prefix="heal-merge-") as scratch:
        folder = Path(scratch)
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            (folder / name).write_bytes(text)
        merge = ["git", "merge-file", "-p", "--quiet", "ours", "base", "theirs"]
        done = subprocess.run(merge, cwd=folder, capture_output=True, check=False)
        if done.returncode:  # > 0: that many conflicts; < 0: an error
            return None
        if done.stdout == ours:
            return ""
        (folder / "merged").write_bytes(done.stdout)
        diff = ["git", "diff", "--no-index", "--no-ext-diff", "--no-color", "-U3", "ours", "merged"]
        text = subprocess.run(diff, cwd=folder, capture_output=True, check=False).stdout
    try:
        hunks = text.decode("utf-8")
    except UnicodeDecodeError:
        return None
    body = hunks[hunks.index("\n@@") + 1 :]  # git's header names the scratch files
    return f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n{body}"
