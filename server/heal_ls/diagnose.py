"""The one run-and-locate pipeline: run the tests (or a script), then locate every failure.

Used by `heal-ls check`, `heal-ls fix`, the bench and the language server. Requested test ids
run as `pytest <their files>` would, once (testing/focus.py): the requested tests are the report
and the files' other passing tests are contrast for ranking. A run of the whole suite or of
exact ids that the test timeout ended at a test that would not stop goes on past that test
(testing/resume.py). A run still holding no passing test around its failures borrows one:
the passing tests of an earlier full run when the caller has one (the editor), plus those the
impact map knows ran the suspects (locate/contrast.py); when neither lends one, a few sibling
modules of the failing files run once, within a budget (testing/siblings.py). Nothing else
runs before the report. The impact map also says which of the functions the failing tests ran
changed since the last green run (locate/history.py). A failure that cannot be located (a bug
of ours) is logged and reported without a heal target; it never hides the other failures.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
from collections.abc import Awaitable, Callable, Sequence

from heal_ls.impact.store import ImpactMap, known_test_files
from heal_ls.locate import Located, locate
from heal_ls.locate.contrast import kept_contrast, needs_contrast, with_known, with_passing
from heal_ls.locate.history import with_history
from heal_ls.locate.prefetch import Prefetch
from heal_ls.models import Failure, RunResult, TestOutcome
from heal_ls.pysource.paths import TestFiles, nodeid_file
from heal_ls.testing.ci_report import read_report
from heal_ls.testing.focus import Focus
from heal_ls.testing.head_start import HeadStart
from heal_ls.testing.options import RunOptions
from heal_ls.testing.report import ReportRow, files_named
from heal_ls.testing.resume import counted, resumed
from heal_ls.testing.runner import run_pytest
from heal_ls.testing.script import run_script
from heal_ls.testing.siblings import sibling_modules, sibling_options

logger = logging.getLogger(__name__)

Diagnosis = tuple[RunResult, list[tuple[Failure, Located]]]
OnRow = Callable[[ReportRow], None] | None
Recording = list[asyncio.Future[None]]  # the runs' writes into the impact map, still going on


async def diagnose(
    root: str | os.PathLike[str],
    options: RunOptions | None = None,
    *,
    tests: Sequence[str] | None = None,
    script: str | None = None,
    on_row: OnRow = None,
    passing_from: RunResult | None = None,
    whole_files: bool = True,
    started: HeadStart | None = None,
    vouched: Sequence[str] = (),
) -> Diagnosis:
    """Run pytest (or the script) in `root` and locate every failure.

    `passing_from`: an earlier full run whose passing tests contrast a partial run;
    `whole_files=False`: run exactly `tests` (the editor, which has `passing_from`);
    `started`: the first run, spawned ahead (`first_run` says which; testing/head_start.py);
    `vouched`: tests of the files the impact map vouched for (`Focus.asking_the_map`): their
    last run is the contrast, they do not run."""
    root = os.path.abspath(str(root))
    options = options or RunOptions()
    if script:
        run = await run_script(root, script, options)
        return run, locate_all(run.failures, root, run)
    recording: Recording = []  # the map is written while the failures are located
    focus = Focus(tuple(tests), tuple(vouched)) if tests else None
    run, evidence = await _tests(
        root, options.for_evidence(), focus, whole_files, on_row, recording, started
    )
    run.changed_since_green = with_history(run, root, options.python).changed_since_green
    evidence.changed_since_green = run.changed_since_green
    if tests:  # a full run holds every passing test; a focused one may borrow some
        borrowed = evidence
        if needs_contrast(borrowed) and passing_from is not None and passing_from is not run:
            borrowed = with_passing(borrowed, passing_from.tests)
        if needs_contrast(borrowed):
            borrowed = with_known(borrowed, root, options.python)
        if needs_contrast(borrowed) and whole_files and not options.overlay:
            borrowed = await _with_siblings(root, options.for_evidence(), borrowed, recording)
        # whichever lent it (the editor's last run, the map, which holds the siblings' run
        # once it ran, or the siblings now), a contrast is kept on one rule, so a re-check
        # ranks as the check did; what the map answered is not run for again either
        if borrowed is not evidence:  # nothing lent: the run's own tests are its contrast
            evidence = kept_contrast(evidence, borrowed)
    tested = test_files(root, options.python, evidence)
    located = locate_all(run.failures, root, evidence, tested)
    await asyncio.gather(*recording)  # written when diagnose returns, as every run's is
    return run, located


async def _with_siblings(
    root: str, options: RunOptions, evidence: RunResult, recording: Recording
) -> RunResult:
    """`evidence` plus the passing tests of the failing files' sibling modules, run once
    within their budget (testing/siblings.py): the contrast of a run that has none."""
    failing = [nodeid_file(f.test) for f in evidence.failures if f.test]
    siblings = sibling_modules(root, list(dict.fromkeys(failing)))
    if not siblings:
        return evidence
    run = await run_pytest(root, sibling_options(options), nodeids=siblings, recording=recording)
    logger.info("contrast from %s: %d passed in %.1fs", siblings, run.passed, run.seconds)
    return with_passing(evidence, run.tests)


def diagnose_report(root: str, report: str, python: str | None = None) -> Diagnosis:
    """Locate the failures of a CI run's JUnit XML report (testing/junit.py) without running
    anything: the report's passing tests and what the impact map knows are the contrast.
    Raises junit.ReportError when the file is not such a report."""
    root = os.path.abspath(root)
    run = with_history(read_report(report, root), root, python)
    evidence = with_known(run, root, python) if needs_contrast(run) else run
    return run, locate_all(run.failures, root, evidence)


async def _tests(
    root: str,
    options: RunOptions,
    focus: Focus | None,
    whole_files: bool,
    on_row: OnRow,
    recording: Recording,
    started: HeadStart | None,
) -> tuple[RunResult, RunResult]:
    """(the report, the evidence): the whole suite, or the requested tests (_focused); the
    files the run names are read for locating meanwhile (locate/prefetch.py)."""
    ahead = Prefetch(root, options.python)
    on_row = (
        on_row if options.overlay else ahead.wrap(on_row, files_named)
    )  # an overlay is not on disk
    if focus is not None and not options.overlay:
        ahead.take(*_likely_read(root, options.python, focus.requested))
    try:
        if focus is None:
            run = await run_pytest(
                root, options, on_row=on_row, recording=recording, started=started
            )
            run = await _resumed(root, options, None, run, on_row, recording)
            return run, run
        return await _focused(root, options, focus, whole_files, on_row, recording, started)
    finally:
        ahead.stop()


async def _focused(
    root: str,
    options: RunOptions,
    focus: Focus,
    whole_files: bool,
    on_row: OnRow,
    recording: Recording,
    started: HeadStart | None,
) -> tuple[RunResult, RunResult]:
    """(the report, the evidence) of the requested tests: their files' one run (without the
    tests the map vouched for: their last run, recalled while the tests run, is the contrast),
    or the tests alone when that run did not reach them (or `whole_files` is off). A run of
    the exact ids goes on past a test the timeout could not stop; a files' run that did not
    reach the requested tests runs them alone instead (its other tests are contrast only)."""
    first = focus.first_run(whole_files)
    if first != focus.files():  # the exact ids run: no other test of the files to vouch for
        focus = Focus(focus.requested)
    recalled = _recalled(root, options.python, focus.vouched)
    if recalled is None:  # the map no longer vouches for them all: the files run whole
        focus, recalled = Focus(focus.requested), []
        if started is not None:
            started.close()  # it was spawned without them
    first_options = focus.first_options(options)
    run = await run_pytest(
        root, first_options, nodeids=first, on_row=on_row, recording=recording, started=started
    )
    if first == list(focus.requested):  # every test of the run was asked for: none is lost
        run = await _resumed(root, first_options, first, run, on_row, recording)
        return run, run
    if run.error or run.timed_out or not focus.missing(run):
        return focus.report(run, len(recalled)), focus.evidence(run, recalled)
    await asyncio.gather(*recording)  # the tests' own run is recorded after their files'
    run = await _pytest(root, options, list(focus.requested), on_row, recording)
    return run, run


def _likely_read(
    root: str, python: str | None, requested: Sequence[str]
) -> tuple[list[str], bool, list[str]]:
    """What locating the requested tests' failures will read, queued before any row arrives
    (their rows come as they end, often with the run): their files and the functions the map
    saw them run last time, as a failed row names them (testing/report.files_named)."""
    files = [os.path.abspath(os.path.join(root, nodeid_file(nodeid))) for nodeid in requested]
    files = [path for path in files if path.endswith(".py")]  # not a folder's id
    keys: list[str] = []
    if ImpactMap.exists(root, python):
        try:
            with ImpactMap.open(root, python) as impact:
                keys = impact.last_ran(requested)
        except (sqlite3.Error, OSError) as exc:
            logger.debug("impact map of %s not read ahead: %s", root, exc)
    return files + [key.rpartition(":")[0] for key in keys], True, keys


def _recalled(root: str, python: str | None, vouched: Sequence[str]) -> list[TestOutcome] | None:
    """The vouched tests' last run from the map, as the run would report them; None when the
    map no longer vouches for every one of them."""
    if not vouched:
        return []
    try:
        with ImpactMap.open(root, python) as impact:
            return impact.recall(vouched)
    except (sqlite3.Error, OSError) as exc:
        logger.warning("impact map of %s not read: %s", root, exc)
        return None


async def _resumed(
    root: str,
    options: RunOptions,
    nodeids: list[str] | None,
    run: RunResult,
    on_row: OnRow,
    recording: Recording,
) -> RunResult:
    """`run` of `nodeids`, gone on past a test the timeout could not stop (testing/resume.py)."""

    def rerun(rest: RunOptions, reported: int) -> Awaitable[RunResult]:
        shown = counted(on_row, reported)
        return run_pytest(root, rest, nodeids=nodeids, on_row=shown, recording=recording)

    return await resumed(run, options, rerun)


async def _pytest(
    root: str, options: RunOptions, nodeids: list[str] | None, on_row: OnRow, recording: Recording
) -> RunResult:
    return await run_pytest(root, options, nodeids=nodeids, on_row=on_row, recording=recording)


def test_files(root: str, python: str | None, evidence: RunResult) -> TestFiles:
    """The files holding tests for ranking the run's failures, built once for the run: those
    it collected tests from, and those the impact map holds tests of. A run that collected some
    files only (focused, -k) ran a helper a test imports from another test file as code; the
    map's earlier runs know that file holds tests. The map is advice: unreadable, not asked."""
    known = known_test_files(root, python) if evidence.failures else []
    return TestFiles.of_run(root, evidence, also_failing=evidence.failures, known=known)


def locate_all(
    failures: list[Failure], root: str, evidence: RunResult, tests: TestFiles | None = None
) -> list[tuple[Failure, Located]]:
    """Locate each failure with the run's evidence (`tests`: the files holding tests, built
    once for the run; else each failure's own); one that fails to locate is reported with the
    reason instead of a suspect, and the others are located as usual."""
    located = []
    for failure in failures:
        try:
            found = locate(failure, root, evidence, tests=tests)
        except Exception as exc:  # noqa: BLE001 - one odd failure must not hide the others
            logger.error("could not locate %s: %s: %s", failure.id, type(exc).__name__, exc)
            found = Located([], False, f"locate failed: {exc}")
        located.append((failure, found))
    return located
