"""Bring the map up to date with the files on disk: only what changed loses its rows.

Each file the map depends on is stat'ed; only a file whose (mtime_ns, size) moved is read again.
A function whose fingerprint changed (or whose module's code outside functions changed, or that
is gone) loses its rows, and every test that ran it becomes stale until it runs again. A test
file whose tree changed makes its own tests stale and its test set unknown. A function whose
code is the same but moved inside (a comment added in it) keeps its rows; the tests that ran it
lose their blocks (kept relative to its first line). A test-support file (conftest.py, a
test folder's helper module) whose tree changed makes stale the tests it may steer: the traced
runs record no function of them (they are never suspects), so their rows cannot say which.
So does pytest's configuration (pytest.ini, pyproject.toml...): every test. Nothing else moves.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
from dataclasses import dataclass

from heal_ls.impact.fingerprints import (
    FileFunctions,
    FunctionPrint,
    also_of,
    file_functions,
    signature,
)
from heal_ls.impact.schema import transaction
from heal_ls.pysource.paths import is_test_support


@dataclass(frozen=True)
class Synced:
    files: int = 0  # files read again (their signature moved)
    functions: int = 0  # functions that changed or went: their rows are gone
    tests: int = 0  # tests made stale by it


# where pytest reads its configuration (addopts, plugins, filterwarnings): it steers every test
PYTEST_CONFIGS = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")


def sync(db: sqlite3.Connection, root: str) -> Synced:
    rows = db.execute("SELECT path, mtime_ns, size, outer, whole FROM files").fetchall()
    moved = [row for row in rows if signature(os.path.join(root, row[0])) != (row[1], row[2])]
    functions, tests = 0, _config(db, root)
    for path, _, _, outer, whole in moved:
        with transaction(db):
            now = file_functions(os.path.join(root, path))
            changed, staled = _functions(db, path, now, outer)
            functions += changed
            tests += (
                staled + _test_file(db, path, now, whole) + _support(db, root, path, now, whole)
            )
            _remember(db, path, now)
    return Synced(len(moved), functions, tests)


def _functions(
    db: sqlite3.Connection, path: str, now: FileFunctions | None, outer: str
) -> tuple[int, int]:
    """(functions changed, tests made stale) of one source file read again."""
    known = db.execute(
        "SELECT id, qualname, fingerprint, layout, line, last, also FROM functions WHERE path=?",
        (path,),
    )
    changed = staled = 0
    for function, qualname, *held in known.fetchall():
        mine = now.functions.get(qualname) if now is not None else None
        if mine is None:
            changed += 1
            staled += drop_rows(db, function)
            db.execute("DELETE FROM functions WHERE id=?", (function,))
            continue
        outer_moved = now is not None and now.outer != outer
        dropped = refresh_function(db, function, tuple(held), mine, outer_moved)
        if dropped is not None:
            changed += 1
            staled += dropped
    return changed, staled


def refresh_function(
    db: sqlite3.Connection,
    function: int,
    held: tuple[str, str, int, int, str],
    mine: FunctionPrint,
    outer_moved: bool = False,
) -> int | None:
    """Bring one function's row from `held` (fingerprint, layout, line, last, also) to `mine`,
    as the file is now. Changed code (or module code around it): its rows go, and the number of tests
    made stale is returned; the same code moved inside: its rows' blocks are off; None when its
    code did not change. A row already as the file is is not written (a re-run writes none)."""
    fingerprint, layout, *_ = held
    dropped = None
    if mine.fingerprint != fingerprint or outer_moved:
        dropped = drop_rows(db, function)
    elif mine.layout != layout:
        drop_blocks(db, function)
    now = (mine.fingerprint, mine.layout, mine.line, mine.last, mine.also_text())
    if held != now:  # code above moves lines
        db.execute(
            "UPDATE functions SET fingerprint=?, layout=?, line=?, last=?, also=? WHERE id=?",
            (*now, function),
        )
    return dropped


def drop_rows(db: sqlite3.Connection, function: int) -> int:
    """The function changed: the tests that ran it are stale, its rows go."""
    stale = db.execute(
        "UPDATE tests SET stale=1 WHERE stale=0 AND id IN (SELECT test FROM runs WHERE function=?)",
        (function,),
    ).rowcount
    db.execute("DELETE FROM runs WHERE function=?", (function,))
    return stale


def drop_blocks(db: sqlite3.Connection, function: int) -> None:
    """The function's lines moved inside it: the tests that ran it no longer have their blocks
    (their rows stand; readers that need blocks run them again)."""
    db.execute(
        "UPDATE tests SET blocks=0 WHERE blocks=1 AND id IN (SELECT test FROM runs WHERE function=?)",
        (function,),
    )


def _test_file(db: sqlite3.Connection, path: str, now: FileFunctions | None, whole: str) -> int:
    """Tests of a test file whose tree changed are stale; its test set is unknown again."""
    if now is not None and now.whole == whole:
        return 0
    fingerprint = now.whole if now is not None else ""
    return db.execute(
        "UPDATE tests SET stale=1 WHERE file=? AND stale=0 AND file_fingerprint!=?",
        (path, fingerprint),
    ).rowcount


def _support(
    db: sqlite3.Connection, root: str, path: str, now: FileFunctions | None, whole: str
) -> int:
    """A test-support file whose tree changed makes stale the tests it may steer: a conftest.py
    those under its folder, a helper module every test (any test may import it)."""
    if not is_test_support(os.path.join(root, path), root) or (now and now.whole == whole):
        return 0
    return stale_steered(db, path)


def config_print(root: str) -> str:
    """A hash of the project's pytest configuration files as they are now."""
    digest = hashlib.blake2b(digest_size=16)
    for name in PYTEST_CONFIGS:
        with contextlib.suppress(OSError), open(os.path.join(root, name), "rb") as handle:
            digest.update(name.encode() + b"\0" + handle.read() + b"\0")
    return digest.hexdigest()


def forget_config(db: sqlite3.Connection) -> None:
    """The configuration a run saw is not known (saved while it ran): the next sync stales."""
    db.execute("INSERT OR REPLACE INTO meta VALUES ('pytest_config', '')")


def _config(db: sqlite3.Connection, root: str) -> int:
    """Every test is stale once pytest's configuration changed (a map that never saw it takes
    it as it is: the tests it holds ran with it, as far as it can tell)."""
    now = config_print(root)
    held = db.execute("SELECT value FROM meta WHERE key='pytest_config'").fetchone()
    if held is not None and held[0] == now:
        return 0
    with transaction(db):
        db.execute("INSERT OR REPLACE INTO meta VALUES ('pytest_config', ?)", (now,))
        if held is None:
            return 0
        return db.execute("UPDATE tests SET stale=1 WHERE stale=0").rowcount


def stale_steered(db: sqlite3.Connection, support: str) -> int:
    """Make stale the tests a test-support file may steer: a conftest.py those under its
    folder, a helper module every test (any test may import it)."""
    folder = os.path.dirname(support) if os.path.basename(support) == "conftest.py" else ""
    prefix = f"{folder}/" if folder else ""
    return db.execute(
        "UPDATE tests SET stale=1 WHERE stale=0 AND substr(file, 1, ?) = ?",
        (len(prefix), prefix),
    ).rowcount


def _remember(db: sqlite3.Connection, path: str, now: FileFunctions | None) -> None:
    if now is None:
        db.execute("DELETE FROM files WHERE path=?", (path,))
        return
    db.execute(
        "UPDATE files SET mtime_ns=?, size=?, outer=?, complete=complete * (whole=?), whole=? "
        "WHERE path=?",
        (*now.signature, now.outer, now.whole, now.whole, path),
    )


def remember_file(db: sqlite3.Connection, path: str, now: FileFunctions) -> None:
    """A file the map now depends on (kept as it is when already known)."""
    db.execute(
        "INSERT OR IGNORE INTO files(path, mtime_ns, size, outer, whole) VALUES (?, ?, ?, ?, ?)",
        (path, *now.signature, now.outer, now.whole),
    )


def known_file(
    db: sqlite3.Connection, path: str, seen: tuple[int, int] | None
) -> FileFunctions | None:
    """The file as the map holds it, when that is the file as it is now (`seen`: its signature):
    its hashes and the functions the map has rows for (partial: others need it read)."""
    row = db.execute("SELECT mtime_ns, size, outer, whole FROM files WHERE path=?", (path,))
    known = row.fetchone()
    if seen is None or known is None or (known[0], known[1]) != seen:
        return None
    found = FileFunctions(seen, known[2], known[3], partial=True)
    rows = db.execute(
        "SELECT qualname, line, fingerprint, layout, last, also FROM functions WHERE path=?",
        (path,),
    )
    for qualname, line, fingerprint, layout, last, also in rows:
        mine = FunctionPrint(qualname, line, fingerprint, layout, last, also_of(also))
        found.functions[qualname] = mine
        for start in mine.starts():
            found.lines.setdefault(start, qualname)
    return found
