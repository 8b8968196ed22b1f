"""Flaky triage in the editor, the plan `heal-ls fix` follows (testing/flaky.py): before a heal
and on "Re-run test", a failing test not yet re-checked runs again on the current buffers until
it passes once, at most heal.flakyRuns times (default 14: a test passing one run in five shows
with 95% confidence), fewer when the test is slow. If it ever passes, its diagnostic becomes
Information `flaky: passed 1 of 3 runs`, the heal action gives way to "Re-run test" and
"Debug failing test", and no model is called; if it never does, the log says what confidence
the re-runs gave."""

from __future__ import annotations

from heal_ls.lsp.failures import diagnostics
from heal_ls.lsp.log import logger
from heal_ls.lsp.progress import Progress
from heal_ls.lsp.runs.run import warm_runner
from heal_ls.lsp.workspace.config import run_options
from heal_ls.lsp.workspace.documents import unsaved_overlay
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.server import HealLanguageServer
from heal_ls.lsp.workspace.state import Known
from heal_ls.testing.flaky import recheck, reruns_for, worth_rechecking


async def triage(server: HealLanguageServer, folder: Folder, known: Known) -> bool:
    """Re-check `known` (a failure of `folder`) once; True when it turned out flaky."""
    test, times = known.failure.test, folder.settings.flakyRuns
    if known.rechecked or not test or times <= 0 or not worth_rechecking(known.failure):
        return known.flaky is not None
    known.rechecked = True
    settings = folder.settings
    times = min(times, reruns_for(known.failure.duration))
    async with Progress(server, folder, f"heal: re-checking {known.label()}") as progress:
        found = await recheck(
            folder.root,
            test,
            times,
            run_options(
                settings,
                overlay=unsaved_overlay(server, folder.root) or None,
                warm=warm_runner(folder),
            ),
            on_run=lambda done, total: progress.report(f"run {done + 2} of {total + 1}"),
            stop_at_pass=True,
        )
    if not found.passed:
        logger.info("%s: %s", known.label(), found.label())
        return False
    known.flaky = found
    folder.state.generation += 1
    diagnostics.publish(server)
    server.failures_changed()
    return True
