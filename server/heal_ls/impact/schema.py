"""The tables a project's impact map holds (one sqlite file per project, where.py says where).

WAL mode and a busy timeout let the server and a CLI write at once.

Tables: `files` (each file the map depends on, with the signature it was read at), `functions`
(path relative to the root + qualname, fingerprint, current first line, layout, last line and
its other defs' first lines),
`tests` (node id, last outcome and duration, the fingerprint of its test file, traced or not,
stale or not, its blocks kept or not) and `runs` (which test ran which function: the rows, each
with the blocks of it the test ran, as lines after the function's first line); `green_files`
and `green`: the source files and their functions' fingerprints as they were at the last green
run (green.py).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from pathlib import Path

VERSION = "1"
TABLES = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files(
    path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL,
    outer TEXT NOT NULL, whole TEXT NOT NULL, complete INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS functions(
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, qualname TEXT NOT NULL,
    fingerprint TEXT NOT NULL, line INTEGER NOT NULL, layout TEXT NOT NULL DEFAULT '',
    last INTEGER NOT NULL DEFAULT 0, also TEXT NOT NULL DEFAULT '', UNIQUE(path, qualname));
CREATE TABLE IF NOT EXISTS tests(
    id INTEGER PRIMARY KEY, nodeid TEXT NOT NULL UNIQUE, file TEXT NOT NULL,
    file_fingerprint TEXT NOT NULL, outcome TEXT NOT NULL, duration REAL NOT NULL,
    traced INTEGER NOT NULL, stale INTEGER NOT NULL DEFAULT 0, blocks INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS tests_file ON tests(file);
CREATE TABLE IF NOT EXISTS runs(
    function INTEGER NOT NULL, test INTEGER NOT NULL, blocks TEXT NOT NULL DEFAULT '',
    PRIMARY KEY(function, test)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS runs_test ON runs(test);
CREATE TABLE IF NOT EXISTS green_files(path TEXT PRIMARY KEY, whole TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS green(
    path TEXT NOT NULL, qualname TEXT NOT NULL, fingerprint TEXT NOT NULL,
    PRIMARY KEY(path, qualname)) WITHOUT ROWID;
"""
# the tables' text: a map whose meta names another was made before a table was added
SCHEMA = hashlib.blake2b(TABLES.encode(), digest_size=8).hexdigest()
DATA = ("runs", "tests", "functions", "files", "green", "green_files")  # all but meta
BUSY_SECONDS = 30.0  # a writer waits this long for another's transaction


def connect(path: Path, root: str, python: str) -> sqlite3.Connection:
    """Open (creating when new, rebuilding when of another version) the map at `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(str(path), timeout=BUSY_SECONDS, isolation_level=None)
    _wal(db)
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA foreign_keys=OFF")
    meta = {"version": VERSION, "schema": SCHEMA, "root": os.path.abspath(root), "python": python}
    if _meta(db) == meta:  # every table there, of this version, for this project: no write
        return db
    with transaction(db):
        made = _meta(db)
        if made and (made.get("version"), made.get("schema")) != (VERSION, SCHEMA):
            for table in DATA:  # made by another heal-ls: its tables may lack a column
                db.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in TABLES.split(";"):
            if statement.strip():
                db.execute(statement)
        db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", meta.items())
    return db


def _wal(db: sqlite3.Connection) -> None:
    """WAL mode, waiting for another writer as long as the busy timeout would: sqlite answers a
    journal mode change with "database is locked" at once, without calling its busy handler,
    while another connection holds a write lock on a new map (two first opens of one map: a
    run's record and the locating that reads the map meanwhile; one of them lost its write)."""
    deadline = time.monotonic() + BUSY_SECONDS
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _meta(db: sqlite3.Connection) -> dict[str, str]:
    """The map's version, schema, root and python ({} in a new file)."""
    try:
        rows = db.execute(
            "SELECT key, value FROM meta WHERE key IN ('version', 'schema', 'root', 'python')"
        ).fetchall()
    except sqlite3.OperationalError:  # no meta table yet
        return {}
    return dict(rows)


class transaction:
    """`with transaction(db):` one short write transaction (BEGIN IMMEDIATE ... COMMIT)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, kind, value, traceback) -> None:
        self.db.execute("ROLLBACK" if kind is not None else "COMMIT")
