"""Write one run of the ORIGINAL code into the map: each test's outcome, duration and rows.

A traced run replaces the rows of every test it ran (functions as path relative to the root +
qualname, read from the coverage keys "abs_path:first_line"). An untraced run (the user's own,
read from pytest's cache) only updates the outcome of a test whose rows are fresh, and records a
test the map did not know without rows. A test whose file or whose functions' files changed
since the run started is left alone: its keys may name lines that moved.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field

from heal_ls.impact.fingerprints import FileFunctions, file_functions, signature
from heal_ls.impact.invalidate import drop_rows, known_file, remember_file
from heal_ls.impact.schema import transaction
from heal_ls.models import RunResult, TestOutcome

TIMEOUT = "timeout"  # a test's outcome when it hit its per-test timeout: never a guard
CHUNK = 200  # tests per write transaction: other writers wait at most one chunk


@dataclass
class Recorder:
    db: sqlite3.Connection
    root: str
    started_ns: int  # files modified after this are not trusted for this run
    _files: dict[str, FileFunctions | None] = field(default_factory=dict)  # read once a run
    _ids: dict[tuple[str, str], int] = field(default_factory=dict)  # (path, qualname) -> id
    _keys: dict[str, tuple[str, int] | None] = field(default_factory=dict)  # key -> (rel, line)
    _remembered: set[str] = field(default_factory=set)  # files this run put in `files`

    def record(self, run: RunResult, traced: bool) -> int:
        timeouts = {f.test for f in run.failures if f.timed_out and f.test}
        tests = [t for t in run.tests if "::" in t.nodeid]
        done = 0
        for at in range(0, len(tests), CHUNK):
            with transaction(self.db):
                for test in tests[at : at + CHUNK]:
                    outcome = TIMEOUT if test.nodeid in timeouts else test.outcome
                    done += self._test(test, outcome, traced)
        return done

    def complete(self, files: Iterable[str]) -> None:
        """Test files (relative) whose whole test set this run ran."""
        with transaction(self.db):
            for rel in files:
                now = self._read(rel)
                if now is not None:
                    remember_file(self.db, rel, now)
                    self.db.execute(
                        "UPDATE files SET complete=1 WHERE path=? AND whole=?", (rel, now.whole)
                    )

    def _read(self, rel: str, whole: bool = False) -> FileFunctions | None:
        """The file as the run saw it (None: changed since the run started, or gone). A file
        the map holds as it is now comes from the map, not read again; `whole`: read it."""
        known = self._files.get(rel, ...)
        if known is ... or (whole and known is not None and known.partial):
            path = os.path.join(self.root, rel)
            now = None if whole else known_file(self.db, rel, signature(path))
            now = now or file_functions(path)
            fresh = now is not None and now.signature[0] <= self.started_ns
            self._files[rel] = now if fresh else None
        return self._files[rel]

    def _test(self, test: TestOutcome, outcome: str, traced: bool) -> int:
        rel = test.nodeid.split("::")[0]
        mine = self._read(rel)
        if mine is None:
            return 0
        if not traced:
            return self._outcome_only(test, outcome, rel, mine.whole)
        functions = self._functions(test.covered)
        if functions is None:
            return 0
        self._remember(rel, mine)
        self.db.execute(
            "INSERT INTO tests(nodeid, file, file_fingerprint, outcome, duration, traced, stale) "
            "VALUES (?, ?, ?, ?, ?, 1, 0) ON CONFLICT(nodeid) DO UPDATE SET file=excluded.file, "
            "file_fingerprint=excluded.file_fingerprint, outcome=excluded.outcome, "
            "duration=excluded.duration, traced=1, stale=0",
            (test.nodeid, rel, mine.whole, outcome, test.duration),
        )
        (row,) = self.db.execute("SELECT id FROM tests WHERE nodeid=?", (test.nodeid,)).fetchone()
        # the test's rows become `functions`: only those that differ are written (a re-run of
        # the same code, the usual case, writes none of its ~60 rows a test again)
        held = {f for (f,) in self.db.execute("SELECT function FROM runs WHERE test=?", (row,))}
        self.db.executemany(
            "DELETE FROM runs WHERE function=? AND test=?", [(f, row) for f in held - functions]
        )
        self.db.executemany(
            "INSERT OR IGNORE INTO runs(function, test) VALUES (?, ?)",
            [(function, row) for function in functions - held],
        )
        return 1

    def _remember(self, rel: str, now: FileFunctions) -> None:
        """remember_file, once a run for each file (its row is kept as it is once there)."""
        if rel not in self._remembered:
            remember_file(self.db, rel, now)
            self._remembered.add(rel)

    def _outcome_only(self, test: TestOutcome, outcome: str, rel: str, whole: str) -> int:
        self.db.execute(
            "INSERT INTO tests(nodeid, file, file_fingerprint, outcome, duration, traced, stale) "
            "VALUES (?, ?, ?, ?, ?, 0, 0) ON CONFLICT(nodeid) DO UPDATE SET "
            "outcome=excluded.outcome, duration=excluded.duration "
            "WHERE tests.stale=0 AND tests.file_fingerprint=excluded.file_fingerprint",
            (test.nodeid, rel, whole, outcome, test.duration),
        )
        return 1

    def _functions(self, covered: list[str]) -> set[int] | None:
        """Function ids of the coverage keys (None: a file changed since the run started)."""
        found: set[int] = set()
        for key in covered:
            where = self._keys[key] if key in self._keys else self._key(key)
            if where is None:
                continue
            rel, line = where
            now = self._read(rel)
            if now is not None and now.partial and now.at_line(line) is None:
                now = self._read(rel, whole=True)  # a function the map does not hold yet
            if now is None:
                return None
            qualname = now.at_line(line)
            if qualname is not None:
                if (rel, qualname) not in self._ids:
                    self._ids[rel, qualname] = self._function(rel, qualname, now)
                found.add(self._ids[rel, qualname])
        return found

    def _key(self, key: str) -> tuple[str, int] | None:
        """(relative path, first line) of a coverage key, None outside the root; read once a
        run (every test of a file names mostly the same keys)."""
        path, _, line = key.rpartition(":")
        rel = os.path.relpath(path, self.root)
        where = None if rel.startswith("..") or not line.isdigit() else (rel, int(line))
        self._keys[key] = where
        return where

    def _function(self, rel: str, qualname: str, now: FileFunctions) -> int:
        mine = now.functions[qualname]
        self._remember(rel, now)
        row = self.db.execute(
            "SELECT id, fingerprint FROM functions WHERE path=? AND qualname=?", (rel, qualname)
        ).fetchone()
        if row is None:
            return (
                self.db.execute(
                    "INSERT INTO functions(path, qualname, fingerprint, line) VALUES (?, ?, ?, ?)",
                    (rel, qualname, mine.fingerprint, mine.line),
                ).lastrowid
                or 0
            )
        if row[1] != mine.fingerprint:  # changed since the last sync: its old rows go
            drop_rows(self.db, row[0])
            self.db.execute(
                "UPDATE functions SET fingerprint=?, line=? WHERE id=?",
                (mine.fingerprint, mine.line, row[0]),
            )
        return row[0]
