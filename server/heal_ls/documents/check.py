"""`heal-ls check --json`: the run's counts and a row per failure with its ranked suspects
(commands/check_report.check_document writes it)."""

from __future__ import annotations

from dataclasses import dataclass

from heal_ls import payload
from heal_ls.testing.flaky import Flaky


@dataclass
class FrameRow:
    path: str | None  # relative to the root, `/`-separated
    line: int | None  # None: the instruction had no line number (rare, on 3.11+)
    function: str


@dataclass
class SuspectRow:
    path: str | None
    qualname: str
    start_line: int
    end_line: int
    reason: str
    def_line: int
    focus_line: int
    start_col: int
    end_col: int
    score: float  # rounded to 3 places


@dataclass
class FailureRow:
    id: str
    test: str | None
    script: str | None
    exc_type: str
    message: str
    timed_out: bool
    when: str | None
    duration: float
    test_path: str | None
    test_line: int | None
    frames: list[FrameRow]
    suspects: list[SuspectRow]
    healable: bool
    reason: str | None
    # with --flaky-runs: the re-check counts (null for a script or a collection); else absent
    flaky: Flaky | None | payload.Absent = payload.ABSENT


@dataclass
class CheckDocument:
    """`heal-ls check --json`: paths relative to root with `/`, lines 1-based."""

    root: str
    passed: int
    failed: int
    errors: int
    skipped: int
    seconds: float
    timed_out: bool
    interrupted: str | None
    failures: list[FailureRow]
    # the tests the run ran (the requested files' others too) and those of the files it did
    # not run: the impact map vouched for their last run (testing/focus.py)
    ran: int = 0
    vouched: int = 0
    # of `skipped` and of `passed`: the tests marked xfail (pytest's xfailed and xpassed)
    xfailed: int = 0
    xpassed: int = 0
