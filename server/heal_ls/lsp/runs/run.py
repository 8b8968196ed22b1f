"""Test and script runs of a folder: at most one in flight, against the unsaved buffers.

Explicit runs (commands) wait their turn; background runs (on save, after a heal) are replaced:
a newer one cancels the older, which kills its pytest process group. Every run is located,
merged into the folder's failures, and published as diagnostics and a heal/status notification.
The folder holds the run state (`folder.runs`, lsp/workspace/folder.py); this module does the
runs, for the server that asked.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from lsprotocol import types

from heal_ls.diagnose import Diagnosis, diagnose, diagnose_report
from heal_ls.heal.blast import blast_radius
from heal_ls.locate import Located, shown_at
from heal_ls.lsp.failures import diagnostics
from heal_ls.lsp.log import logger
from heal_ls.lsp.progress import Progress
from heal_ls.lsp.runs import fill
from heal_ls.lsp.workspace import status
from heal_ls.lsp.workspace.config import run_options
from heal_ls.lsp.workspace.documents import unsaved_overlay
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.server import HealLanguageServer
from heal_ls.lsp.workspace.state import Known
from heal_ls.models import Failure, RunResult
from heal_ls.testing.runner import build_pytest_invocation
from heal_ls.testing.warm.client import WarmRunner, get_warm_runner

SCRIPT_TIMEOUT = 30.0  # seconds a script run may take in the editor

Start = Callable[[dict[str, str]], Awaitable[Diagnosis]]


def known_of(located: list[tuple[Failure, Located]], root: str) -> dict[str, Known]:
    """The state's view of located failures: the top suspect, healable or why not."""
    known = {}
    for failure, found in located:
        suspect = found.suspects[0] if found.suspects else None
        healable = found.healable and bool(suspect)
        shown = shown_at(failure, root) if suspect is None else None
        known[failure.id] = Known(failure, suspect, healable, found.reason, shown=shown)
    return known


def warm_runner(folder: Folder) -> WarmRunner | None:
    """The folder's warm runner (pytest already imported), None if unavailable."""
    try:
        return get_warm_runner(folder.settings.python or sys.executable, folder.root)
    except Exception as exc:  # an optimisation only: cold runs still work
        logger.info("no warm runner: %s", exc)
        return None


async def tests(
    server: HealLanguageServer,
    folder: Folder,
    nodeids: list[str] | None = None,
    *,
    title: str = "heal: running tests",
    overlay: dict[str, str] | None = None,
) -> RunResult | None:
    """Run pytest (all tests, or `nodeids`), publish, return the RunResult.

    `overlay` adds texts to the unsaved buffers (a just-applied fix the editor may not have
    reported back yet)."""
    settings = folder.settings

    async def start(buffers: dict[str, str]) -> Diagnosis:
        options = run_options(
            settings,
            overlay={**buffers, **(overlay or {})} or None,
            warm=warm_runner(folder),
        )
        return await diagnose(
            folder.root,
            options,
            tests=nodeids or None,
            passing_from=folder.runs.last_run,  # a partial run ranks against the last full run
            whole_files=False,  # exactly the tests asked for: the last full run contrasts
        )

    return await _run(server, folder, start, nodeids or None, title)


async def prewarm(folder: Folder) -> None:
    """Start the folder's warm runner when it opens (a collect-only run teaches it what to
    preload), so the first save or heal is already fast. Never raises."""
    runner = warm_runner(folder)
    if runner is None:
        return
    settings = folder.settings
    collect = ("--collect-only", *settings.pytestArgs)
    options = run_options(settings, pytest_args=collect, trace=False)
    inv = build_pytest_invocation(folder.root, options)
    try:
        ready = await runner.prewarm(inv)
    finally:
        inv.cleanup()
    logger.info("warm runner %s", "ready" if ready else "unavailable: test runs stay cold")


async def script(
    server: HealLanguageServer,
    folder: Folder,
    path: str,
    *,
    title: str = "heal: running script",
    overlay: dict[str, str] | None = None,
) -> RunResult | None:
    async def start(buffers: dict[str, str]) -> Diagnosis:
        options = run_options(
            folder.settings,
            run_timeout=SCRIPT_TIMEOUT,
            overlay={**buffers, **(overlay or {})} or None,
        )
        return await diagnose(folder.root, options, script=path)

    return await _run(server, folder, start, [], title, script=path)


async def report(server: HealLanguageServer, folder: Folder, path: str) -> RunResult | None:
    """A CI run's JUnit XML report in place of a run: nothing runs (testing/junit.py)."""

    async def start(buffers: dict[str, str]) -> Diagnosis:
        python = folder.settings.python
        return await asyncio.to_thread(diagnose_report, folder.root, path, python)

    return await _run(server, folder, start, None, f"heal: loading {path}")


async def _run(
    server: HealLanguageServer,
    folder: Folder,
    start: Start,
    scope: list[str] | None,
    title: str,
    script: str | None = None,
) -> RunResult | None:
    runs = folder.runs
    async with runs.lock:
        runs.cancel_fill()
        runs.running = True
        status.notify(server)
        try:
            async with Progress(server, folder, title) as progress:
                overlay = unsaved_overlay(server, folder.root)
                progress.report("running" + (f" {len(scope)} test(s)" if scope else ""))
                work = asyncio.ensure_future(start(overlay))
                progress.watch(work)  # a cancel stops the run (and kills its processes)
                if asyncio.current_task() is not runs.background:
                    runs.cancel_explicit = progress.cancel
                try:
                    run, located = await work
                except asyncio.CancelledError:
                    if not progress.cancelled_by_user:
                        raise  # cancelled from above: a newer run or shutdown
                    server.show("heal: run cancelled")
                    return None
                known = _merge(server, folder, run, located, scope, script)
                await measure(server, folder, known, run)
                if not run.error and script is None:
                    fill.after(server, folder, run, located)
                return run
        finally:
            runs.cancel_explicit = None
            runs.running = False
            status.notify(server)


async def measure(
    server: HealLanguageServer, folder: Folder, located: dict[str, Known], run: RunResult
) -> None:
    """The blast radius of each new healable failure's function (a thread: the call-site
    scan reads the workspace), then code actions are re-indexed to show it."""
    healable = [(k, k.suspect) for k in located.values() if k.healable and k.suspect is not None]
    if not healable:
        return
    runs = [run, folder.runs.last_run]
    for known, suspect in healable:
        python = folder.settings.python
        known.blast = await asyncio.to_thread(blast_radius, folder.root, suspect, runs, python)
    folder.state.generation += 1
    server.failures_changed()


def _merge(
    server: HealLanguageServer,
    folder: Folder,
    run: RunResult,
    located: list[tuple[Failure, Located]],
    scope: list[str] | None,
    script: str | None,
) -> dict[str, Known]:
    if run.error:
        server.show(f"heal: could not run: {run.error}", types.MessageType.Error)
        return {}
    if scope is None or folder.runs.last_run is None:
        folder.runs.last_run = run
    if script is not None:  # a script run replaces that script's earlier failure only
        scope = [k.id for k in folder.state.known.values() if k.failure.script == script]
    known = known_of(located, folder.root)
    folder.state.apply_run(run, known, scope)
    diagnostics.publish(server)
    server.failures_changed()
    logger.info(
        "run: %d passed, %d failed, %d errors in %.1fs",
        run.passed,
        run.failed,
        run.errors,
        run.seconds,
    )
    return known


def in_background(
    server: HealLanguageServer,
    folder: Folder,
    nodeids: list[str] | None,
    delay: float = 0.0,
    overlay: dict[str, str] | None = None,
    done: Callable[[list[str] | None], Any] | None = None,
    script_path: str | None = None,
) -> asyncio.Task[None]:
    """Start a background run (of the script `script_path` if given) after `delay`, cancelling the previous
    background run. `done(nodeids)` is called when the run finished, not when cancelled."""
    folder.runs.cancel_background()

    async def later() -> None:
        await asyncio.sleep(delay)
        if script_path is not None:
            title = "heal: re-running script"
            await script(server, folder, script_path, title=title, overlay=overlay)
        else:
            await tests(server, folder, nodeids, title="heal: re-running tests", overlay=overlay)
        if done is not None:
            done(nodeids)

    folder.runs.background = task = server.run_task(later(), "background run")
    return task
