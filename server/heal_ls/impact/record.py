"""Write one run of the ORIGINAL code into the map: each test's outcome, duration and rows.

A traced run replaces the rows of every test it ran (functions as path relative to the root +
qualname, read from the coverage keys "abs_path:first_line"). An untraced run (the user's own,
read from pytest's cache) only updates the outcome of a test whose rows are fresh, and records a
test the map did not know without rows. A run that recorded blocks (diagnose's) keeps each
test's blocks in its rows, relative to each function's first line (the test's `blocks` flag says
they are there and fit the code as it is: a layout change inside a function clears it). A test
whose file or whose functions' files changed since the run started is left alone: its keys may
name lines that moved.
"""

from __future__ import annotations

import os
import sqlite3
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from heal_ls.impact.fingerprints import FileFunctions, FunctionPrint, file_functions, signature
from heal_ls.impact.invalidate import (
    PYTEST_CONFIGS,
    forget_config,
    known_file,
    refresh_function,
    remember_file,
    stale_steered,
)
from heal_ls.impact.schema import transaction
from heal_ls.models import RunResult, TestOutcome
from heal_ls.pysource.paths import nodeid_file, test_support_files

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
    _rels: dict[str, str] = field(default_factory=dict)  # absolute path -> relative (_relative)
    # key -> (rel, qualname, function id): a key _functions resolved once, for the run's other tests
    _resolved: dict[str, tuple[str, str, int]] = field(default_factory=dict)
    _remembered: set[str] = field(default_factory=set)  # files this run put in `files`

    def record(self, run: RunResult, traced: bool) -> int:
        timeouts = {f.test for f in run.failures if f.timed_out and f.test}
        tests = [t for t in run.tests if "::" in t.nodeid]
        if tests:
            with transaction(self.db):
                self._remember_support()
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
        rel = nodeid_file(test.nodeid)
        mine = self._read(rel)
        if mine is None:
            return 0
        if not traced:
            return self._outcome_only(test, outcome, rel, mine.whole)
        ran = self._functions(test.covered)
        if ran is None:
            return 0
        blocks = self._blocks(test.blocks, ran) if test.blocks is not None else None
        self._remember(rel, mine)
        self.db.execute(
            "INSERT INTO tests(nodeid, file, file_fingerprint, outcome, duration, traced, stale, "
            "blocks) VALUES (?, ?, ?, ?, ?, 1, 0, ?) ON CONFLICT(nodeid) DO UPDATE SET "
            "file=excluded.file, file_fingerprint=excluded.file_fingerprint, "
            "outcome=excluded.outcome, duration=excluded.duration, traced=1, stale=0, "
            "blocks=excluded.blocks",
            (test.nodeid, rel, mine.whole, outcome, test.duration, int(blocks is not None)),
        )
        (row,) = self.db.execute("SELECT id FROM tests WHERE nodeid=?", (test.nodeid,)).fetchone()
        # the test's rows become `rows`: only those that differ are written (a re-run of the
        # same code, the usual case, writes none of its ~60 rows a test again)
        rows = blocks if blocks is not None else dict.fromkeys(ran.functions, "")
        held = dict(self.db.execute("SELECT function, blocks FROM runs WHERE test=?", (row,)))
        self.db.executemany(
            "DELETE FROM runs WHERE function=? AND test=?",
            [(f, row) for f in held if f not in rows],
        )
        self.db.executemany(
            "INSERT OR REPLACE INTO runs(function, test, blocks) VALUES (?, ?, ?)",
            [(f, row, mine) for f, mine in rows.items() if held.get(f) != mine],
        )
        return 1

    def _remember_support(self) -> None:
        """The test-support files the map does not hold yet (conftest.py, test folders'
        helpers): the run saw them as they are, and sync stales the tests an edit of one may
        steer. One new since the map's tests ran makes them stale (this run's own are written
        fresh after). One saved since the run started (or pytest's configuration) is held as
        unknown, so the next sync finds it changed."""
        for name in PYTEST_CONFIGS:
            seen = signature(os.path.join(self.root, name))
            if seen is not None and seen[0] > self.started_ns:
                forget_config(self.db)
        known = {path for (path,) in self.db.execute("SELECT path FROM files")}
        for rel, path in test_support_files(self.root):
            now = None if rel in known else file_functions(path)
            if now is not None:
                fresh = now.signature[0] <= self.started_ns
                held = now if fresh else replace(now, signature=(0, 0), whole="")
                remember_file(self.db, rel, held)
                stale_steered(self.db, rel)

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

    def _functions(self, covered: list[str]) -> Ran | None:
        """The functions of the coverage keys (None: a file changed since the run started)."""
        found = Ran()
        for key in covered:
            resolved = self._resolved.get(key)
            if resolved is not None:  # as below, without asking again what the key names
                known_rel, known_name, function = resolved
                held = self._files[known_rel]
                if held is None:  # read whole since, and changed since the run started
                    return None
                found.functions[function] = (known_rel, held.functions[known_name])
                continue
            where = self._keys[key] if key in self._keys else self._key(key)
            if where is None:
                found.exact = False
                continue
            rel, line = where
            now = self._read(rel)
            if now is not None and now.partial and now.at_line(line) is None:
                now = self._read(rel, whole=True)  # a function the map does not hold yet
            if now is None:
                return None
            qualname = now.at_line(line)
            if qualname is None:
                found.exact = False
                continue
            if (rel, qualname) not in self._ids:
                self._ids[rel, qualname] = self._function(rel, qualname, now)
            self._resolved[key] = (rel, qualname, self._ids[rel, qualname])
            found.functions[self._ids[rel, qualname]] = (rel, now.functions[qualname])
        return found

    def _blocks(self, blocks: dict[str, list[int]], ran: Ran) -> dict[int, str] | None:
        """Each function's blocks the test ran, as lines after its first line ("0,3,7"), so they
        hold while lines above it move; None when a block is in no function the test ran (or a
        key named no function): the map cannot give this test's blocks back as the run had them."""
        if not ran.exact:
            return None
        spans: dict[str, list[tuple[int, int, int]]] = {}
        for function, (rel, mine) in ran.functions.items():
            spans.setdefault(rel, []).append((mine.line, mine.last, function))
        offsets: dict[int, list[int]] = {function: [] for function in ran.functions}
        for path, lines in blocks.items():
            owners = _innermost(sorted(lines), spans.get(self._relative(path), []))
            if owners is None:
                return None
            for line, (first, function) in owners:
                offsets[function].append(line - first)
        return {f: ",".join(map(str, sorted(found))) for f, found in offsets.items()}

    def _key(self, key: str) -> tuple[str, int] | None:
        """(relative path, first line) of a coverage key, None outside the root; read once a
        run (every test of a file names mostly the same keys)."""
        path, _, line = key.rpartition(":")
        rel = self._relative(path)
        where = None if rel.startswith("..") or not line.isdigit() else (rel, int(line))
        self._keys[key] = where
        return where

    def _relative(self, path: str) -> str:
        """`path` relative to the root, worked out once a run: every test of a file names
        mostly the same files (a cold networkx check: 604 relpath calls, ~3 ms, for 16 files)."""
        rel = self._rels.get(path)
        if rel is None:
            rel = self._rels[path] = os.path.relpath(path, self.root)
        return rel

    def _function(self, rel: str, qualname: str, now: FileFunctions) -> int:
        mine = now.functions[qualname]
        self._remember(rel, now)
        row = self.db.execute(
            "SELECT id, fingerprint, layout, line, last, also FROM functions "
            "WHERE path=? AND qualname=?",
            (rel, qualname),
        ).fetchone()
        if row is None:
            return (
                self.db.execute(
                    "INSERT INTO functions(path, qualname, fingerprint, line, layout, last, also) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        rel,
                        qualname,
                        mine.fingerprint,
                        mine.line,
                        mine.layout,
                        mine.last,
                        mine.also_text(),
                    ),  # fmt: skip
                ).lastrowid
                or 0
            )
        refresh_function(self.db, row[0], tuple(row[1:]), mine)  # changed since the last sync
        return row[0]


def _innermost(
    lines: list[int], spans: list[tuple[int, int, int]]
) -> list[tuple[int, tuple[int, int]]] | None:
    """Each of the sorted `lines` with (first line, function) of the innermost span (first,
    last, function) holding it: of those holding it, the greatest (first, function); None when
    a line is in none. Spans in ascending (first, function) order each claim their lines by
    bisection, so a later one (nested: starting further down) takes them over. (Comparing each
    line with each span held in the file cost ~25 ms of a cold networkx check's map write.)"""
    owners: list[tuple[int, int] | None] = [None] * len(lines)
    for first, last, function in sorted(spans, key=lambda span: (span[0], span[2])):
        for at in range(bisect_left(lines, first), bisect_right(lines, last)):
            owners[at] = (first, function)
    if None in owners:
        return None
    return list(zip(lines, owners))  # type: ignore[arg-type]


@dataclass
class Ran:
    """The functions one test ran, by id, as the map holds them."""

    functions: dict[int, tuple[str, FunctionPrint]] = field(default_factory=dict)  # id -> (rel, it)
    exact: bool = True  # every key named a function under the root (the map can give them back)
