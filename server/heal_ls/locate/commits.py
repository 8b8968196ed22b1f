"""The last commits that changed a function: `git log -L<start>,<end>:<file>`, short.

The def's lines are read from the committed file (`git show HEAD:<file>`: -L counts lines of
HEAD, not of the working tree), so an uncommitted edit above the def does not shift the range.
Each git call has a timeout; no git, not a repository, a file git does not track or a call that
timed out gives None (the caller shows no history). A function HEAD does not hold yet gives [].
Results are kept per (file, qualname, fingerprint): an edit to the function asks git again.

    commits = function_commits("/repo/pkg/mod.py", "Cart.total")   # blocking: call off the loop
"""

from __future__ import annotations

import os
import subprocess
from collections import OrderedDict
from dataclasses import dataclass

from heal_ls.impact.fingerprints import file_functions
from heal_ls.locate.index import index_source

MAX_COMMITS = 3
GIT_SECONDS = 3.0
CACHE_SIZE = 256
SEP = "\x1f"


@dataclass(frozen=True)
class Commit:
    sha: str  # abbreviated
    date: str  # YYYY-MM-DD, the author date
    author: str
    subject: str


_cache: OrderedDict[tuple[str, str, str], list[Commit] | None] = OrderedDict()


def function_commits(path: str, qualname: str) -> list[Commit] | None:
    """The last MAX_COMMITS commits that changed `qualname` of the file at `path`, newest first."""
    key = _key(path, qualname)
    if key is not None and key in _cache:
        _cache.move_to_end(key)
        return _cache[key]
    found = _log(os.path.abspath(path), qualname)
    if key is not None:
        _cache[key] = found
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return found


def _key(path: str, qualname: str) -> tuple[str, str, str] | None:
    found = file_functions(path)
    mine = found.functions.get(qualname) if found is not None else None
    return (os.path.abspath(path), qualname, mine.fingerprint) if mine is not None else None


def _log(path: str, qualname: str) -> list[Commit] | None:
    folder, name = os.path.split(path)
    committed = _git(folder, "show", f"HEAD:./{name}")
    if committed is None:
        return None
    span = _span(committed, qualname)
    if span is None:
        return []  # not committed yet
    out = _git(
        folder, "log", "-s", f"-n{MAX_COMMITS}", "--no-color", "--date=short",
        f"--format={SEP}%h{SEP}%ad{SEP}%an{SEP}%s", f"-L{span[0]},{span[1]}:{name}",
    )  # fmt: skip
    if out is None:
        return None
    lines = [line.split(SEP)[1:] for line in out.splitlines() if line.startswith(SEP)]
    return [Commit(p[0], p[1], p[2], SEP.join(p[3:])) for p in lines if len(p) >= 4]


def _span(text: str, qualname: str) -> tuple[int, int] | None:
    try:
        node = index_source(text).find(qualname)
    except (SyntaxError, ValueError):
        return None
    return (node.start_line, node.end_line) if node is not None else None


def _git(folder: str, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-c", "core.quotepath=off", *args],
            cwd=folder,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=GIT_SECONDS,
            check=False,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None
