"""Run pytest on a workspace and return a RunResult: build -> spawn (or warm fork) -> collect.

Cancelling the awaiting task kills the whole process group; the run timeout does the same and
still returns every test that finished, with the stuck one reported as a timeout.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from heal_ls.impact.feed import start_recording
from heal_ls.models import RunResult
from heal_ls.testing.head_start import HeadStart, Started
from heal_ls.testing.invocation import PytestInvocation, build_pytest_invocation, runs_serial
from heal_ls.testing.options import RunOptions
from heal_ls.testing.process import run_process
from heal_ls.testing.report import ReportRow, collect_result
from heal_ls.testing.report_tail import ReportTail
from heal_ls.testing.sandbox import NotIsolated, sandboxed
from heal_ls.testing.sandbox_policy import SandboxPolicy

if TYPE_CHECKING:
    from heal_ls.testing.warm.client import WarmRunner

DUMP = getattr(signal, "SIGUSR1", None)  # the plugin dumps all stacks on it (faulthandler)

__all__ = [
    "PytestInvocation",
    "RunOptions",
    "build_pytest_invocation",
    "collect_result",
    "run_pytest",
]


async def run_pytest(
    root: str | os.PathLike[str],
    options: RunOptions | None = None,
    *,
    nodeids: Sequence[str] | None = None,
    on_row: Callable[[ReportRow], None] | None = None,
    recording: list[asyncio.Future[None]] | None = None,
    started: HeadStart | None = None,
) -> RunResult:
    """Run `nodeids` (None: the whole suite) in `root` as `options` say; `on_row(row)` sees each
    report row (collected, start, test...) while the run goes on. `recording`: the run's write
    into the impact map is appended there for the caller to await, instead of awaited here.

    Only a whole-suite run of the saved code runs under the user's pytest-xdist
    (invocation.runs_serial). A run of the saved code (no overlay, no sandbox) goes into the
    project's impact map (impact/feed.py). `started`: `heal-ls check`'s head start, taken
    over when it is this run (testing/head_start.py)."""
    options = options or RunOptions()
    policy = options.policy
    early = started.take(root, options, nodeids) if started is not None else None
    if early is None:
        serial = runs_serial(options, nodeids)
        inv = build_pytest_invocation(root, options, nodeids=nodeids, serial=serial)
        begun = time.time()
    else:
        inv, begun = early.inv, early.wall
    result = await _run(inv, options.warm, options.run_timeout, policy, on_row, early)
    if not options.overlay and policy is None:
        record = (inv.root, options.python, nodeids, options.pytest_args, result)
        written = start_recording(*record, traced=options.trace, started=begun)
        if recording is None:
            await written
        else:
            recording.append(written)
    return result


async def _run(
    inv: PytestInvocation,
    warm: WarmRunner | None,
    run_timeout: float,
    policy: SandboxPolicy | None,
    on_row: Callable[[ReportRow], None] | None,
    early: Started | None = None,
) -> RunResult:
    tail = ReportTail(inv.report_path, on_row) if on_row else None
    try:
        if tail is not None:
            tail.start()
        if warm is not None:
            return await _run_warm(inv, warm, run_timeout, policy)
        return await _run_spawned(inv, run_timeout, policy, early)
    except NotIsolated as exc:
        return RunResult(root=inv.root, error=str(exc))
    finally:
        if tail is not None:
            await tail.stop()
        inv.cleanup()


async def _run_spawned(
    inv: PytestInvocation, run_timeout: float, policy: SandboxPolicy | None, early: Started | None
) -> RunResult:
    box = sandboxed(
        inv.command, inv.env, run_timeout, policy, root=inv.root, writable=[inv.workdir]
    )
    with box as (cmd, env, preexec):
        try:
            outcome = await run_process(
                cmd,
                env=env,
                cwd=inv.cwd,
                timeout=run_timeout,
                preexec_fn=preexec,
                dump_signal=DUMP,
                adopt=early.process if early else None,
                since=early.monotonic if early else None,
            )
        except OSError as exc:  # no such interpreter, not executable, bad cwd
            error = f"cannot run {inv.python}: {exc.strerror or exc}"
            return RunResult(root=inv.root, error=error)
    return collect_result(
        inv, outcome.returncode, outcome.output, outcome.seconds, outcome.timed_out
    )


async def _run_warm(
    inv: PytestInvocation, warm: WarmRunner, run_timeout: float, sandbox: SandboxPolicy | None
) -> RunResult:
    started = time.monotonic()
    timed_out = False
    try:
        returncode, output = await warm.run(inv, run_timeout, sandbox=sandbox)
    except (asyncio.TimeoutError, TimeoutError) as exc:  # keep what the run printed before
        returncode, output, timed_out = -9, getattr(exc, "output", ""), True
    return collect_result(inv, returncode, output, time.monotonic() - started, timed_out)
