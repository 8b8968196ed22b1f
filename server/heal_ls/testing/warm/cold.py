"""A cold pytest run (no warm server) with the warm runner's limits and output file."""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from typing import TYPE_CHECKING

from heal_ls.testing import sandbox as sandboxing
from heal_ls.testing.agent import heal_protocol as wire
from heal_ls.testing.process import run_process
from heal_ls.testing.sandbox import CPU_MARGIN, MEMORY_LIMIT, Sandbox

if TYPE_CHECKING:
    from heal_ls.testing.invocation import PytestInvocation


if sys.version_info >= (3, 11):  # asyncio.TimeoutError is TimeoutError

    class _Timeout(TimeoutError):
        pass

else:

    class _Timeout(asyncio.TimeoutError, TimeoutError):
        pass


class WarmTimeout(_Timeout):
    """The run hit its timeout and was killed; `output` holds what it printed."""

    def __init__(self, seconds: float, output: str):
        super().__init__(f"pytest run timed out after {seconds:g}s")
        self.output = output


def run_limits(timeout: float) -> wire.Limits:
    return wire.Limits(
        memory=MEMORY_LIMIT,
        cpu_seconds=int(timeout) + CPU_MARGIN,
        file_size=sandboxing.FILE_LIMIT,
        processes=sandboxing.PROCESS_LIMIT,
    )


def warm_output_path() -> str:
    handle, path = tempfile.mkstemp(prefix="heal-warm-", suffix=".out")
    os.close(handle)
    return path


async def run_cold(
    inv: PytestInvocation, timeout: float, box: Sandbox | None = None
) -> tuple[int, str]:
    """`python -m pytest argv` in its own process group, killed on timeout or cancellation."""
    cmd, env, preexec = inv.command, inv.env, None
    if box is not None:
        cmd, env, preexec = box.cmd, box.env, box.preexec(timeout)
    outcome = await run_process(cmd, env=env, cwd=inv.cwd, timeout=timeout, preexec_fn=preexec)
    if outcome.timed_out:
        raise WarmTimeout(timeout, outcome.output)
    return outcome.returncode, outcome.output
