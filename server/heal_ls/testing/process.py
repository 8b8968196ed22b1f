"""Run one child process in its own process group; nothing it does can hang the caller.

The run timeout and task cancellation both kill the whole group (grandchildren included).
Output is merged (stdout + stderr) and bounded; a grandchild that keeps the pipe open after
the child exits does not keep us waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass

OUTPUT_LIMIT = 512 * 1024  # characters of output kept (head + tail)
PIPE_GRACE = 1.0  # seconds to drain output after the child exits
DUMP_GRACE = 0.5  # seconds for the child to write its stacks before it is killed


@dataclass
class ProcessOutcome:
    returncode: int
    output: str
    seconds: float
    timed_out: bool = False


class _BoundedBuffer:
    def __init__(self, limit: int = OUTPUT_LIMIT):
        self.head = bytearray()
        self.tail = bytearray()
        self.limit = limit
        self.dropped = 0

    def add(self, data: bytes) -> None:
        room = self.limit // 4 - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        self.tail += data
        excess = len(self.tail) - (self.limit - self.limit // 4)
        if excess > 0:
            del self.tail[:excess]
            self.dropped += excess

    def text(self) -> str:
        cut = f"\n... [{self.dropped} bytes of output cut] ...\n" if self.dropped else ""
        return (bytes(self.head).decode(errors="replace") + cut) + bytes(self.tail).decode(
            errors="replace"
        )


async def _pump(stream: asyncio.StreamReader, buffer: _BoundedBuffer) -> None:
    while chunk := await stream.read(65536):
        buffer.add(chunk)


def kill_group(pid: int) -> None:
    """SIGKILL a process group (each run and each warm server lead their own); a process that is
    not a group leader (yet) is killed alone."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


class _Adopted:
    """The face of asyncio's Process (pid, returncode, stdout, wait, send_signal) on a child
    spawned earlier with subprocess.Popen; one worker thread waits for its exit (polling it
    every 10 ms cost the waiting process ~50 ms of CPU in a 3 s run)."""

    def __init__(self, popen: subprocess.Popen[bytes], reader: asyncio.StreamReader) -> None:
        self.popen = popen
        self.pid = popen.pid
        self.stdout = reader
        self.transport: asyncio.BaseTransport | None = None
        self.exited: asyncio.Future[int] | None = None

    @classmethod
    async def reading(cls, popen: subprocess.Popen[bytes]) -> _Adopted:
        reader = asyncio.StreamReader()
        adopted = cls(popen, reader)
        loop = asyncio.get_running_loop()
        protocol = asyncio.StreamReaderProtocol(reader)
        adopted.transport, _ = await loop.connect_read_pipe(lambda: protocol, popen.stdout)
        return adopted

    @property
    def returncode(self) -> int | None:
        return self.popen.returncode

    async def wait(self) -> int:
        if self.exited is None:
            self.exited = asyncio.get_running_loop().run_in_executor(None, self.popen.wait)
        return await asyncio.shield(self.exited)  # a waiter cancelled leaves the others theirs

    def send_signal(self, sig: int) -> None:
        self.popen.send_signal(sig)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


async def _ask_for_stacks(proc: asyncio.subprocess.Process | _Adopted, dump_signal: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        proc.send_signal(dump_signal)
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(asyncio.shield(proc.wait()), DUMP_GRACE)


async def _wait(
    proc: asyncio.subprocess.Process | _Adopted, timeout: float, dump_signal: int | None
) -> bool:
    """Wait for the process; on timeout ask for its stacks, then kill its group. True: timed out."""
    try:
        await asyncio.wait_for(proc.wait(), timeout)
        return False
    except asyncio.TimeoutError:
        if dump_signal is not None:
            await _ask_for_stacks(proc, dump_signal)
        kill_group(proc.pid)
        await proc.wait()
        return True


async def run_process(
    cmd: list[str],
    *,
    env: dict[str, str],
    cwd: str,
    timeout: float,
    preexec_fn: Callable[[], None] | None = None,
    dump_signal: int | None = None,
    adopt: subprocess.Popen[bytes] | None = None,
    since: float | None = None,
) -> ProcessOutcome:
    """Spawn cmd, wait at most `timeout` seconds, return its exit code and merged output.

    On timeout, `dump_signal` (if given) is sent first so the child can write its stacks.
    `adopt`: cmd already spawned as it would be here (its own session, output merged into a
    pipe: testing/head_start.py), at `since` (time.monotonic()); it is waited for instead.
    """
    started = time.monotonic() if since is None else since
    if adopt is None:
        proc: asyncio.subprocess.Process | _Adopted = await asyncio.create_subprocess_exec(
            *cmd,
            env=env,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,  # its own process group, so one kill reaches everything
            preexec_fn=preexec_fn,
        )
    else:
        proc = await _Adopted.reading(adopt)
    buffer = _BoundedBuffer()
    assert proc.stdout is not None  # stdout=PIPE
    pump = asyncio.create_task(_pump(proc.stdout, buffer))
    try:
        timed_out = await _wait(proc, timeout, dump_signal)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(pump), PIPE_GRACE)
    finally:
        kill_group(proc.pid)  # leftovers (daemons the tests started) and the cancelled case
        pump.cancel()
        if proc.returncode is None:
            with contextlib.suppress(BaseException):
                await asyncio.shield(proc.wait())
        if isinstance(proc, _Adopted):
            proc.close()
    return ProcessOutcome(
        returncode=proc.returncode if proc.returncode is not None else -9,
        output=buffer.text(),
        seconds=time.monotonic() - started,
        timed_out=timed_out,
    )
