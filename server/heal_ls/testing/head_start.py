"""`heal-ls check`'s first pytest run, spawned before the rest of heal-ls is imported.

heal-ls's own imports (asyncio, the runner, the impact map, the ranking, the report: ~0.2 s of
CPU) used to come before pytest started, so `check` of one test's file paid them on top of
plain pytest's time. This module imports little (the invocation and the options), so `check`
starts its first run as soon as its arguments are read, imports the rest while the tests run,
and the run of the same tests with the same options takes that process over instead of
spawning another (`testing/runner.run_pytest(..., started=)`). A run that nobody took is
killed when the command ends (`close`).

    head = HeadStart.spawn(root, options, nodeids)   # None: a run this cannot start
    try:
        run = await run_pytest(root, options, nodeids=nodeids, started=head)
    finally:
        if head is not None:
            head.close()
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass

from heal_ls.testing.invocation import PytestInvocation, build_pytest_invocation, runs_serial
from heal_ls.testing.options import RunOptions
from heal_ls.testing.prestart import PreStart


@dataclass
class Started:
    """A spawned run and its invocation, taken over by the runner."""

    inv: PytestInvocation
    process: subprocess.Popen[bytes]
    wall: float  # time.time() at the spawn: files changed after it are not trusted
    monotonic: float  # time.monotonic() at the spawn: the run's duration counts from it


@dataclass
class HeadStart:
    root: str
    options: RunOptions
    nodeids: tuple[str, ...]
    started: Started | None

    @classmethod
    def spawn(
        cls,
        root: str,
        options: RunOptions,
        nodeids: Sequence[str],
        early: PreStart | None = None,
    ) -> HeadStart | None:
        """Spawn the run of `nodeids` in `root` as run_pytest would (sent to the launcher
        `early` when it fits: testing/prestart.py); None for a run it would not spawn (a warm
        runner's fork, a sandboxed run or a candidate's overlay)."""
        if options.warm is not None or options.policy is not None or options.overlay:
            return None
        serial = runs_serial(options, nodeids)
        inv = build_pytest_invocation(root, options, nodeids=nodeids, serial=serial)
        wall, monotonic = time.time(), time.monotonic()
        process = early.take(inv.command, inv.env, inv.cwd) if early is not None else None
        try:
            process = process or subprocess.Popen(
                inv.command,
                env=inv.env,
                cwd=inv.cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, as run_process spawns
            )
        except OSError:  # the runner's own spawn reports it
            inv.cleanup()
            return None
        return cls(inv.root, options, tuple(nodeids), Started(inv, process, wall, monotonic))

    def take(
        self, root: str | os.PathLike[str], options: RunOptions, nodeids: Sequence[str] | None
    ) -> Started | None:
        """The run, once, when it is the one asked for (the same root, options and ids)."""
        asked = (os.path.abspath(str(root)), options, tuple(nodeids or ()))
        if self.started is None or asked != (self.root, self.options, self.nodeids):
            return None
        started, self.started = self.started, None
        return started

    def close(self) -> None:
        """Kill the run if nobody took it, and remove its files."""
        if self.started is not None:
            with contextlib.suppress(OSError):  # its whole group, as run_process kills one
                os.killpg(self.started.process.pid, signal.SIGKILL)
            self.started.process.wait()
            self.started.process.stdout.close()  # type: ignore[union-attr]
            self.started.inv.cleanup()
            self.started = None
