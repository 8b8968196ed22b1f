"""Test and script runs: at most one in flight per workspace, against the unsaved buffers.

Explicit runs (commands) wait their turn; background runs (on save, after a heal) are replaced:
a newer one cancels the older, which kills its pytest process group. Every run is located,
merged into the state, and published as diagnostics and a heal/status notification.
"""

from __future__ import annotations

import asyncio
import sys

from lsprotocol import types

from heal_ls.diagnose import diagnose, diagnose_report
from heal_ls.locate import Located
from heal_ls.lsp.failures import diagnostics
from heal_ls.lsp.log import logger, spawn
from heal_ls.lsp.progress import Progress
from heal_ls.lsp.runs.fill import MapFill
from heal_ls.lsp.workspace import status
from heal_ls.lsp.workspace.documents import unsaved_overlay
from heal_ls.lsp.workspace.state import Known
from heal_ls.models import Failure, RunResult
from heal_ls.testing.options import RunOptions

SCRIPT_TIMEOUT = 30.0  # seconds a script run may take in the editor


def known_of(located: list[tuple[Failure, Located]]) -> dict[str, Known]:
    """The state's view of located failures: the top suspect, healable or why not."""
    known = {}
    for failure, found in located:
        suspect = found.suspects[0] if found.suspects else None
        known[failure.id] = Known(failure, suspect, found.healable and bool(suspect), found.reason)
    return known


class Runs:
    def __init__(self, ls):
        self.ls = ls
        self.lock = asyncio.Lock()
        self.background: asyncio.Task | None = None
        self.running = False
        self.last_run: RunResult | None = None  # the last full run: its coverage guards heals
        self.explicit = None  # the Progress of the command-started run in flight (to cancel it)
        self.fill = MapFill(ls)  # the impact map's background fill after a run (a run stops it)

    async def tests(self, nodeids=None, *, title="heal: running tests", overlay=None):
        """Run pytest (all tests, or `nodeids`), publish, return the RunResult.

        `overlay` adds texts to the unsaved buffers (a just-applied fix the editor may not have
        reported back yet)."""
        settings = self.ls.settings

        async def start(buffers):
            options = RunOptions(
                python=settings.python,
                # the user's lastfailed is theirs: it tells us about THEIR runs (lsp/runs/lastfailed.py)
                pytest_args=tuple(settings.pytestArgs),
                own_cache=True,
                test_timeout=settings.testTimeout,
                overlay={**buffers, **(overlay or {})} or None,
                warm=self.warm_runner(),
            )
            return await diagnose(
                self.ls.root,
                options,
                tests=nodeids or None,
                passing_from=self.last_run,  # a partial run ranks against the last full run
                whole_files=False,  # exactly the tests asked for: the last full run contrasts
            )

        return await self._run(start, nodeids or None, title)

    def warm_runner(self):
        """The warm runner for this workspace (pytest already imported), None if unavailable."""
        try:
            from heal_ls.testing.warm.client import get_warm_runner

            return get_warm_runner(self.ls.settings.python or sys.executable, self.ls.root)
        except Exception as exc:  # an optimisation only: cold runs still work
            logger.info("no warm runner: %s", exc)
            return None

    async def prewarm(self) -> None:
        """Start the workspace's warm runner when it opens (a collect-only run teaches it what
        to preload), so the first save or heal is already fast. Never raises."""
        runner = self.warm_runner()
        if runner is None:
            return
        from heal_ls.testing.runner import build_pytest_invocation

        settings = self.ls.settings
        inv = build_pytest_invocation(
            self.ls.root,
            python=settings.python,
            pytest_args=("--collect-only", *settings.pytestArgs),
            trace=False,
        )
        try:
            ready = await runner.prewarm(inv)
        finally:
            inv.cleanup()
        logger.info("warm runner %s", "ready" if ready else "unavailable: test runs stay cold")

    async def script(self, script: str, *, title="heal: running script", overlay=None):
        async def start(buffers):
            options = RunOptions(
                python=self.ls.settings.python,
                run_timeout=SCRIPT_TIMEOUT,
                overlay={**buffers, **(overlay or {})} or None,
            )
            return await diagnose(self.ls.root, options, script=script)

        return await self._run(start, [], title, script=script)

    async def report(self, path: str) -> RunResult | None:
        """A CI run's JUnit XML report in place of a run: nothing runs (testing/junit.py)."""

        async def start(buffers):
            python = self.ls.settings.python
            return await asyncio.to_thread(diagnose_report, self.ls.root, path, python)

        return await self._run(start, None, f"heal: loading {path}")

    async def _run(self, start, scope, title, script=None) -> RunResult | None:
        async with self.lock:
            self.fill.cancel()
            self.running = True
            status.notify(self.ls)
            try:
                async with Progress(self.ls, title) as progress:
                    overlay = unsaved_overlay(self.ls, self.ls.root)
                    progress.report("running" + (f" {len(scope)} test(s)" if scope else ""))
                    work = asyncio.ensure_future(start(overlay))
                    progress.watch(work)  # a cancel stops the run (and kills its processes)
                    if asyncio.current_task() is not self.background:
                        self.explicit = progress
                    try:
                        run, located = await work
                    except asyncio.CancelledError:
                        if not progress.cancelled_by_user:
                            raise  # cancelled from above: a newer run or shutdown
                        self.ls.show("heal: run cancelled")
                        return None
                    known = self._merge(run, located, scope, script)
                    await self.measure(known, run)
                    if not run.error and script is None:
                        self.fill.after(run, located)
                    return run
            finally:
                self.explicit = None
                self.running = False
                status.notify(self.ls)

    async def measure(self, located: dict[str, Known], run: RunResult) -> None:
        """The blast radius of each new healable failure's function (a thread: the call-site
        scan reads the workspace), then code actions are re-indexed to show it."""
        from heal_ls.heal.blast import blast_radius

        healable = [k for k in located.values() if k.healable and k.suspect is not None]
        if not healable:
            return
        runs = [run, self.last_run]
        for known in healable:
            python = self.ls.settings.python
            blast = (self.ls.root, known.suspect, runs, python)
            known.blast = await asyncio.to_thread(blast_radius, *blast)
        self.ls.state.generation += 1
        if self.ls.indexes is not None:
            self.ls.indexes.refresh_all()

    def _merge(self, run: RunResult, located, scope, script) -> dict[str, Known]:
        if run.error:
            self.ls.show(f"heal: could not run: {run.error}", types.MessageType.Error)
            return {}
        if scope is None or self.last_run is None:
            self.last_run = run
        if script is not None:  # a script run replaces that script's earlier failure only
            scope = [k.id for k in self.ls.state.known.values() if k.failure.script == script]
        known = known_of(located)
        self.ls.state.apply_run(run, known, scope)
        diagnostics.publish(self.ls)
        if self.ls.indexes is not None:
            self.ls.indexes.refresh_all()
        logger.info(
            "run: %d passed, %d failed, %d errors in %.1fs",
            run.passed,
            run.failed,
            run.errors,
            run.seconds,
        )
        return known

    def in_background(self, nodeids, delay=0.0, overlay=None, done=None, script=None):
        """Start a background run (of `script` if given) after `delay`, cancelling the previous
        background run. `done(nodeids)` is called when the run finished, not when cancelled."""
        if self.background is not None and not self.background.done():
            self.background.cancel()

        async def later():
            await asyncio.sleep(delay)
            if script is not None:
                await self.script(script, title="heal: re-running script", overlay=overlay)
            else:
                await self.tests(nodeids, title="heal: re-running tests", overlay=overlay)
            if done is not None:
                done(nodeids)

        self.background = spawn(later(), "background run")
        return self.background
