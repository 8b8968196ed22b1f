"""A run heal-ls ended at a test that would not stop, resumed past that test.

The per-test timeout interrupts a hanging test; one that does not stop (an `except
BaseException:` retry loop, a teardown still running a grace after a timeout that came while
pytest reported the call) is given up on: the plugin keeps its record and ends the process
(exit 70; faulthandler ends one that holds the GIL), and the tests after it never run. Plain
pytest, which has no timeout, would have run them; so does `check`: they run again in a new
process, every test already reported deselected, at most `RESUMES` times (each costs a timeout
and its grace). A process that died by itself (a segfault, `os._exit`) is not resumed: pytest's
own run ends there too.

    run = await run_pytest(root, options, nodeids=ids, on_row=show)
    again = lambda rest, done: run_pytest(root, rest, nodeids=ids, on_row=counted(show, done))
    run = await resumed(run, options, again)
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable

from heal_ls.models import RunResult
from heal_ls.testing.agent import heal_protocol as wire
from heal_ls.testing.options import RunOptions
from heal_ls.testing.report import ABORT_EXIT_CODE

logger = logging.getLogger(__name__)

RESUMES = 3  # runs after the first; each ended at a test that would not stop

OnRow = Callable[[wire.ReportLine], None] | None
Rerun = Callable[[RunOptions, int], Awaitable[RunResult]]  # (options, tests already reported)


def aborted(run: RunResult) -> bool:
    """Did the test timeout end the run's process: the plugin's, at a test that would not stop
    (exit 70), or faulthandler's, at one that held the GIL past its grace (the test the run
    ended in is a timeout)?"""
    if run.complete or run.timed_out or run.error or run.interrupted:
        return False
    return run.returncode == ABORT_EXIT_CODE or any(f.timed_out for f in run.failures[-1:])


async def resumed(run: RunResult, options: RunOptions, rerun: Rerun) -> RunResult:
    """`run` joined with the runs of the tests it did not reach (`rerun(options, reported)`:
    `options` with the reported tests deselected), while a run ends at a test that would not
    stop."""
    for _ in range(RESUMES):
        if not aborted(run):
            break
        reported = reported_ids(run)
        logger.info("the run ended at a test that would not stop: %d tests on", len(reported))
        run = joined(run, await rerun(options.excluding(reported), len(reported)))
    return run


def counted(on_row: OnRow, reported: int) -> OnRow:
    """`on_row` for a resumed run: its collected count (the tests left) plus those reported
    before, so a progress bar's total stays the whole run's."""
    if on_row is None:
        return None
    shown = on_row

    def row(line: wire.ReportLine) -> None:
        if isinstance(line, wire.Collected):
            line = wire.Collected(line.count + reported)
        shown(line)

    return row


def reported_ids(run: RunResult) -> list[str]:
    """The tests the run reported, the one it gave up on included."""
    ids = [t.nodeid for t in run.tests] + [f.test for f in run.failures if f.test]
    return list(dict.fromkeys(ids))


def joined(first: RunResult, rest: RunResult) -> RunResult:
    """One result of two runs of the same ids, the second past where the first ended: counts,
    tests and failures added (a collection error both report counts once), time summed, and
    how it ended (exit, completeness, errors) the second's."""
    seen = {f.id for f in first.failures if f.test is None}
    new = [f for f in rest.failures if f.test is not None or f.id not in seen]
    return dataclasses.replace(
        rest,
        passed=first.passed + rest.passed,
        failed=first.failed + rest.failed,
        errors=first.errors + rest.errors - (len(rest.failures) - len(new)),
        skipped=first.skipped + rest.skipped,
        xfailed=first.xfailed + rest.xfailed,
        xpassed=first.xpassed + rest.xpassed,
        seconds=round(first.seconds + rest.seconds, 3),
        failures=[*first.failures, *new],
        tests=[*first.tests, *rest.tests],
    )
