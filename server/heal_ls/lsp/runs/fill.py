"""After a run with failures, the impact map is filled for their suspects' functions in the
background, and the diagnostics are re-ranked when it is done.

A run of some tests (on save, the re-run of the user's own failures) may hold no passing test
that ran the failing tests' functions, so the spectrum cannot tell the function the test calls
from the callee with the bug. The run is published at once, as it is; then the tests around the
top suspects (their test files and the suspects' importers, testing/coverage_run.py) run traced
on the saved code with a short per-test timeout, only those the map does not know fresh, with
work-done progress (cancellable). A newer run cancels the fill. When it ends, the failures are
located again with the passing tests it found and the diagnostics are published again.
"""

from __future__ import annotations

import asyncio

from heal_ls.diagnose import locate_all, test_files
from heal_ls.locate import Located
from heal_ls.locate.contrast import with_passing
from heal_ls.lsp.failures import diagnostics
from heal_ls.lsp.log import logger
from heal_ls.lsp.progress import Progress
from heal_ls.lsp.workspace.config import run_options
from heal_ls.lsp.workspace.documents import unsaved_overlay
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.server import HealLanguageServer
from heal_ls.models import Failure, RunResult, TestOutcome
from heal_ls.testing.coverage_run import coverage_run

FILL_TEST_TIMEOUT = 2.0  # seconds per test: a hanging or network test cannot stall the fill
TITLE = "heal: learning which tests run the suspects"


def after(
    server: HealLanguageServer,
    folder: Folder,
    run: RunResult,
    located: list[tuple[Failure, Located]],
) -> None:
    """Start the fill for `run`'s failures (saved code only: the map knows saved code),
    cancelling the folder's fill in flight."""
    folder.runs.cancel_fill()
    paths = sorted({where.suspects[0].path for _, where in located if where.suspects})
    failing = [failure.test for failure, _ in located if failure.test]
    if not paths or not failing or unsaved_overlay(server, folder.root):
        return
    work = fill(server, folder, run, paths, failing)
    folder.runs.fill = server.run_task(work, "impact map fill")


async def fill(
    server: HealLanguageServer,
    folder: Folder,
    run: RunResult,
    paths: list[str],
    failing: list[str],
) -> None:
    settings = folder.settings
    # ranking evidence: the blocks each test ran too, as diagnose's own runs record them
    options = run_options(
        settings,
        test_timeout=min(FILL_TEST_TIMEOUT, settings.testTimeout),
    ).for_evidence()
    async with Progress(server, folder, TITLE) as progress:
        progress.report(f"the tests around {len(paths)} module(s)")
        work = asyncio.ensure_future(
            coverage_run(folder.root, suspect_paths=paths, failing=failing, options=options)
        )
        progress.watch(work)
        try:
            found = await work
        except asyncio.CancelledError:
            if progress.cancelled_by_user:
                return
            raise
        progress.report(f"{len(found.passing())} passing test(s) known; re-ranking")
        rerank(server, folder, run, found.passing())


def rerank(
    server: HealLanguageServer, folder: Folder, run: RunResult, passing: list[TestOutcome]
) -> None:
    """Locate `run`'s failures again with `passing` as contrast; publish what moved."""
    evidence = with_passing(run, passing)
    tests = test_files(folder.root, folder.settings.python, evidence)
    located = locate_all(run.failures, folder.root, evidence, tests)
    state, moved = folder.state, 0
    for failure, where in located:
        known = state.known.get(failure.id)
        top = where.suspects[0] if where.suspects else None
        if known is None or top is None or known.suspect == top:
            continue
        known.suspect, known.blast = top, None
        known.healable = where.healable
        moved += 1
    logger.info("map fill: %d passing test(s), %d diagnostic(s) moved", len(passing), moved)
    if moved:
        state.generation += 1
        diagnostics.publish(server)
        server.failures_changed()
