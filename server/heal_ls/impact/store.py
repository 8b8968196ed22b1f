"""The impact map: which tests ran which functions of a project, kept across runs and edits.

What pytest-testmon does with coverage, at function level: rows (test, function) with the
function's fingerprint, plus each test's last outcome and duration, in one sqlite file per project
and interpreter (schema.py). `sync()` drops only what an edit touched (invalidate.py); `record()`
takes a run of the original code (record.py). Readers get fresh data only: a test whose rows may
be out of date (it ran a function that changed since) is stale until it runs again.

    with ImpactMap.open(root, python) as impact:
        impact.sync()
        impact.record(run)
        impact.tests_running(Function("pkg/mod.py", "Cls.method"))  # fresh passing tests
        impact.stats()  # rows, functions, tests, bytes on disk
        impact.changed_since_green(keys)  # functions edited since the last all-pass run
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from heal_ls.impact.fingerprints import also_of
from heal_ls.impact.green import (
    changed_since_green,
    files_holding_tests,
    is_green,
    remember_green,
)
from heal_ls.impact.invalidate import Synced, sync
from heal_ls.impact.record import TIMEOUT, Recorder
from heal_ls.impact.schema import connect
from heal_ls.impact.vouch import VOUCHED
from heal_ls.impact.where import interpreter_path, map_path
from heal_ls.models import RunResult, TestOutcome

__all__ = [
    "TIMEOUT",
    "Function",
    "ImpactMap",
    "MapStats",
    "MappedTest",
    "Synced",
    "known_test_files",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Function:
    path: str  # relative to the project root, `/`-separated
    qualname: str

    @classmethod
    def at(cls, root: str, path: str, qualname: str) -> Function:
        """The function `qualname` of the file at `path` (absolute or relative to `root`)."""
        rel = os.path.relpath(os.path.join(root, path), root)
        return cls(rel.replace(os.sep, "/"), qualname)


@dataclass(frozen=True)
class MappedTest:
    nodeid: str
    outcome: str  # passed, failed, error, skipped or timeout: its last run on the original
    duration: float  # seconds, that run's


@dataclass(frozen=True)
class MapStats:
    rows: int  # (test, function) pairs
    functions: int
    tests: int
    bytes: int  # the database on disk, its write-ahead log included

    @property
    def megabytes(self) -> float:
        return self.bytes / 1e6


class ImpactMap:
    def __init__(self, db: sqlite3.Connection, root: str, path: Path) -> None:
        self.db = db
        self.root = root  # absolute
        self.path = path  # the sqlite file

    @classmethod
    def open(cls, root: str, python: str | None = None) -> ImpactMap:
        root = os.path.abspath(root)
        path = map_path(root, python)
        return cls(connect(path, root, interpreter_path(python)), root, path)

    @classmethod
    def exists(cls, root: str, python: str | None = None) -> bool:
        """Has anything made a map for this project and interpreter yet?"""
        return map_path(os.path.abspath(root), python).is_file()

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> ImpactMap:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def sync(self) -> Synced:
        """Drop the rows of every function whose source changed since it was recorded."""
        return sync(self.db, self.root)

    def record(
        self,
        run: RunResult,
        *,
        traced: bool = True,
        complete: Sequence[str] = (),
        started: float | None = None,
    ) -> int:
        """Record a run of the ORIGINAL code; returns how many tests it recorded.
        traced: the run recorded covered functions (else only outcomes are taken);
        complete: test files (relative) the run ran whole, so their test set is known;
        started: when it started (time.time(); default: its end minus its duration)."""
        self.sync()
        began = started if started is not None else time.time() - run.seconds
        recorder = Recorder(self.db, self.root, int(began * 1e9))
        count = recorder.record(run, traced)
        if complete and not run.timed_out and not run.error:
            recorder.complete(complete)
        if traced and is_green(self.db, run, bool(complete)):
            remember_green(self.db, self.root)
        return count

    def changed_since_green(self, keys: Iterable[str]) -> list[str]:
        """Those functions ("abs_path:first_line") whose code changed since the last green
        run (green.py); [] when the map saw none."""
        return changed_since_green(self.db, self.root, keys)

    def tests_running(self, function: Function) -> list[MappedTest]:
        """Fresh tests that ran `function` and passed, fastest first."""
        return [t for t in self.touching(function) if t.outcome == "passed"]

    def touching(self, function: Function) -> list[MappedTest]:
        """Fresh tests that ran `function`, whatever their outcome, fastest first."""
        rows = self.db.execute(
            "SELECT t.nodeid, t.outcome, t.duration FROM functions f "
            "JOIN runs r ON r.function = f.id JOIN tests t ON t.id = r.test "
            "WHERE f.path=? AND f.qualname=? AND t.stale=0 AND t.traced=1 "
            "ORDER BY t.duration, t.nodeid",
            (function.path, function.qualname),
        )
        return [MappedTest(*row) for row in rows]

    def last_ran(self, nodeids: Sequence[str]) -> list[str]:
        """The functions ("abs_path:first_line", their lines now) those tests ran at their last
        recorded run, fresh or stale: what their next run will likely read (locate/prefetch)."""
        rows = self.db.execute(
            "SELECT DISTINCT f.path, f.line FROM tests t JOIN runs r ON r.test = t.id "
            "JOIN functions f ON f.id = r.function "
            "WHERE t.nodeid IN (SELECT value FROM json_each(?)) ORDER BY f.path, f.line",
            (_json(nodeids),),
        )
        return [f"{os.path.join(self.root, path)}:{line}" for path, line in rows]

    def known(self, files: Iterable[str]) -> list[str]:
        """Those test files (relative) whose whole test set the map holds, as they are now."""
        rows = self.db.execute(
            "SELECT path FROM files WHERE complete=1 AND path IN (SELECT value FROM json_each(?))",
            (_json(files),),
        )
        return sorted(path for (path,) in rows)

    def test_files(self) -> list[str]:
        """The files (absolute) the map holds tests of (`green.files_holding_tests`)."""
        return files_holding_tests(self.db, self.root)

    def stale(self, files: Iterable[str]) -> list[str]:
        """Node ids of those files whose data is out of date or was never traced."""
        rows = self.db.execute(
            "SELECT nodeid FROM tests WHERE (stale=1 OR traced=0) "
            "AND file IN (SELECT value FROM json_each(?)) ORDER BY nodeid",
            (_json(files),),
        )
        return [nodeid for (nodeid,) in rows]

    def outcomes(self, files: Iterable[str]) -> list[TestOutcome]:
        """The fresh traced tests of those files as a traced run reports them: covered
        functions as "abs_path:first_line" of the files as they are now, and their blocks where
        the map kept them. Timed-out tests are left out: they are neither guards nor failures."""
        where = (
            "t.stale=0 AND t.traced=1 AND t.outcome != ? "
            "AND t.file IN (SELECT value FROM json_each(?))"
        )
        return self._tests(where, (TIMEOUT, _json(files)), "t.nodeid")

    def recall(self, nodeids: Sequence[str]) -> list[TestOutcome] | None:
        """Those tests as a traced run with blocks reports them (covered functions and blocks
        at the lines they are at now), when the map still vouches for every one of them
        (testing/vouch.py; fresh, traced with their blocks kept); None when it no longer does."""
        where = f"{VOUCHED} AND t.nodeid IN (SELECT value FROM json_each(?))"
        found = self._tests(where, (_json(nodeids),), "t.id")
        return found if len(found) == len(set(nodeids)) else None

    def passing(self, nodeids: Sequence[str]) -> list[TestOutcome]:
        """Those of the tests that are fresh, traced and passed, as a traced run reports them:
        the functions they ran and, where the map kept them, their blocks (else `blocks` is
        None, as for a run that did not record them). Contrast for a run that has none
        (locate/contrast.py): without the blocks, a borrowed test says nothing of which branch
        of a function it ran, and the blocks' spectrum counts only the failing tests."""
        where = (
            "t.stale=0 AND t.traced=1 AND t.outcome='passed' "
            "AND t.nodeid IN (SELECT value FROM json_each(?))"
        )
        return self._tests(where, (_json(nodeids),), "t.nodeid")

    def _tests(self, where: str, params: tuple[str, ...], order: str) -> list[TestOutcome]:
        """The tests the condition selects, in `order`, each with the functions it ran and the
        blocks of them where the map kept that test's blocks (None where it did not: as a run
        that did not record them); covered keys sorted as a traced run's report sorts them."""
        found: dict[str, TestOutcome] = {}
        rows = self.db.execute(
            "SELECT t.nodeid, t.outcome, t.duration, t.file, t.blocks, f.path, f.line, f.also, "
            "r.blocks "
            "FROM tests t LEFT JOIN runs r ON r.test = t.id "
            "LEFT JOIN functions f ON f.id = r.function "
            f"WHERE {where} ORDER BY {order}, f.path, f.line",
            params,
        )
        for nodeid, outcome, duration, file, kept, path, line, also, offsets in rows:
            test = found.get(nodeid)
            if test is None:
                test = found[nodeid] = TestOutcome(
                    nodeid,
                    outcome,
                    duration,
                    path=os.path.join(self.root, file),
                    blocks={} if kept else None,
                )
            if path is None:
                continue
            full = os.path.join(self.root, path)
            # every def of the name (a setter, an overload's implementation): a run names the
            # one that ran, the row does not say which
            test.covered += [f"{full}:{line}", *(f"{full}:{line + o}" for o in also_of(also))]
            if offsets and test.blocks is not None:
                test.blocks.setdefault(full, []).extend(
                    line + int(offset) for offset in offsets.split(",")
                )
        for test in found.values():
            test.covered.sort()
            for lines in (test.blocks or {}).values():
                lines.sort()
        return list(found.values())

    def stats(self) -> MapStats:
        count = self.db.execute
        rows = count("SELECT count(*) FROM runs").fetchone()[0]
        functions = count("SELECT count(*) FROM functions").fetchone()[0]
        tests = count("SELECT count(*) FROM tests").fetchone()[0]
        size = sum(_size(f"{self.path}{tail}") for tail in ("", "-wal", "-shm"))
        return MapStats(rows, functions, tests, size)


def _json(items: Iterable[str]) -> str:
    return json.dumps(list(items))


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def known_test_files(root: str, python: str | None = None) -> list[str]:
    """The files the project's impact map holds tests of, when it has one that reads: the map
    is advice, so an unreadable one is not asked ([])."""
    try:
        if ImpactMap.exists(root, python):
            with ImpactMap.open(root, python) as impact:
                return impact.test_files()
    except (sqlite3.Error, OSError) as exc:
        logger.debug("impact map of %s not read for its test files: %s", root, exc)
    return []
