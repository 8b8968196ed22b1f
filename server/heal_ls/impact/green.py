"""The code as it was at the last green run, and which functions changed since.

A green run: a traced run that took whole test files, completed, and had every test pass, while
the map knows no fresh test that fails. Then every source file the map depends on is read whole
and kept as the green snapshot (`green_files`: the file's hash; `green`: each function's
fingerprint), replacing the one before. A function changed since green when its file was in the
snapshot and its fingerprint differs, or it is new there. Files the snapshot never saw are no
evidence either way. Ranking (locate/history.py) gives changed functions a bonus: a regression
is likelier in code edited since the suite last passed.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterable

from heal_ls.impact.fingerprints import file_functions
from heal_ls.impact.schema import transaction
from heal_ls.models import RunResult
from heal_ls.pysource.paths import TestFiles, is_doctest

FAILING = ("failed", "error", "timeout")


def is_green(db: sqlite3.Connection, run: RunResult, whole_files: bool) -> bool:
    """Did this run (just recorded) leave the code green, as far as the map knows?"""
    if not whole_files or not run.complete or run.timed_out or run.error or run.interrupted:
        return False
    if run.failed or run.errors or run.failures or not run.passed:
        return False
    placeholders = ",".join("?" * len(FAILING))
    (failing,) = db.execute(
        f"SELECT count(*) FROM tests WHERE stale=0 AND outcome IN ({placeholders})", FAILING
    ).fetchone()
    return failing == 0


def remember_green(db: sqlite3.Connection, root: str) -> int:
    """Snapshot every source file the map depends on, as it is now; returns the files kept."""
    paths = [rel for (rel,) in db.execute("SELECT DISTINCT path FROM functions")]
    return keep_green(db, root, paths)


def files_holding_tests(db: sqlite3.Connection, root: str) -> list[str]:
    """The files (absolute, under `root`) the map holds tests of: pytest collected them,
    whatever their names (a project's own python_files). Not a module holding only doctests
    (--doctest-modules): that module is code."""
    rows = db.execute("SELECT DISTINCT file, nodeid FROM tests")
    files = {file for file, nodeid in rows if not is_doctest(nodeid)}
    return [os.path.join(root, file) for file in sorted(files)]


def keep_green(db: sqlite3.Connection, root: str, paths: Iterable[str]) -> int:
    """Make these source files (relative to `root`), as they are there now, the green snapshot.
    `root` may be another tree than the map's: the bench replays an older release's code."""
    # a file of tests the map holds is a test file whatever its name (a project's own
    # python_files); a run that did not collect it recorded its helpers as code
    tests = TestFiles(root, files_holding_tests(db, root))
    kept = []
    for rel in paths:
        full = os.path.join(root, rel)
        now = None if full in tests else file_functions(full)
        if now is not None:
            kept.append((rel, now))
    with transaction(db):
        db.execute("DELETE FROM green")
        db.execute("DELETE FROM green_files")
        for rel, now in kept:
            db.execute("INSERT INTO green_files(path, whole) VALUES (?, ?)", (rel, now.whole))
            db.executemany(
                "INSERT INTO green(path, qualname, fingerprint) VALUES (?, ?, ?)",
                [(rel, p.qualname, p.fingerprint) for p in now.functions.values()],
            )
        db.execute("INSERT OR REPLACE INTO meta VALUES ('green_at', ?)", (str(time.time()),))
    return len(kept)


def changed_since_green(db: sqlite3.Connection, root: str, keys: Iterable[str]) -> list[str]:
    """Those functions ("abs_path:first_line" keys, as coverage names them) whose code changed
    since the last green run; [] when there was none."""
    files: dict[str, str | None] = {}
    found = []
    for key in keys:
        path, _, line = key.rpartition(":")
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        if rel.startswith("..") or not line.isdigit():
            continue
        if rel not in files:
            row = db.execute("SELECT whole FROM green_files WHERE path=?", (rel,)).fetchone()
            files[rel] = row[0] if row else None
        now = file_functions(path) if files[rel] is not None else None
        if now is None or now.whole == files[rel]:
            continue
        qualname = now.at_line(int(line))
        if qualname is None:
            continue
        row = db.execute(
            "SELECT fingerprint FROM green WHERE path=? AND qualname=?", (rel, qualname)
        ).fetchone()
        if row is None or row[0] != now.functions[qualname].fingerprint:
            found.append(key)
    return found
