"""The client side of one warm server process: start it, send runs, read replies on a thread.

A plain thread reads the server's replies, so the process is not tied to one asyncio event loop
(the CLI may call asyncio.run several times; tests use a loop per test). Anything unexpected
raises WarmUnavailable, and the caller runs pytest cold instead.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from heal_ls.testing.agent import heal_protocol as wire
from heal_ls.testing.agent.heal_exchange import open_exchange
from heal_ls.testing.process import OUTPUT_LIMIT, kill_group

SERVER_FILE = str(Path(__file__).resolve().parent.parent / "agent" / "warm_server.py")
START_TIMEOUT = 60.0
GRACE = 5.0  # the server enforces run timeouts; we only step in if it does not


class WarmUnavailable(Exception):
    """The warm server cannot serve this run (not started, died, protocol error, doubt)."""

    def __init__(self, message: str, kind: str = "unavailable"):
        super().__init__(message)
        self.kind = kind


class RunTimedOut(Exception):
    def __init__(self, output: str):
        super().__init__("timed out")
        self.output = output


class _Pending:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.done: asyncio.Future[tuple[int, bool, float]] = loop.create_future()
        self.pid: int | None = None

    def settle(
        self, result: tuple[int, bool, float] | None = None, error: Exception | None = None
    ) -> None:
        def apply() -> None:
            if self.done.done():
                return
            if error is not None or result is None:
                self.done.set_exception(error or WarmUnavailable("no answer"))
            else:
                self.done.set_result(result)

        try:
            self.loop.call_soon_threadsafe(apply)
        except RuntimeError:  # that loop is closed: nobody is waiting any more
            pass


class ServerProcess:
    def __init__(
        self,
        python: str,
        root: str,
        env: dict[str, str],
        cwd: str,
        options: wire.ServerOptions,
        prefix: Sequence[str] = (),
    ) -> None:
        """prefix: a sandbox command the server runs in (its pids are then not ours to kill: the
        sandbox's PID namespace takes every run down with the server)."""
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the server
        self.proc = subprocess.Popen(
            [*prefix, python, SERVER_FILE, root, wire.encode(options)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.log, env=env, cwd=cwd, start_new_session=True,
        )  # fmt: skip
        assert self.proc.stdin is not None and self.proc.stdout is not None  # both PIPEs
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        self.foreign_pids = bool(prefix)
        self.ready = threading.Event()
        self.site_dirs: list[str] = []
        self.learned: list[str] = []
        self.learned_rewritten: list[wire.Rewritten] = []
        self.tainted: str | None = None
        self.pending: dict[int, _Pending] = {}
        self.ids = itertools.count(1)
        self.write_lock = threading.Lock()
        self.retiring = self.dead = False
        self.last_cpu = 0.0  # CPU seconds of the last finished run (user + system)
        threading.Thread(target=self._read_replies, name="heal-warm-reader", daemon=True).start()

    async def wait_ready(self) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, self.ready.wait, START_TIMEOUT)
        if not self.site_dirs:
            self.kill()
            raise WarmUnavailable(f"warm server did not start: {self._log_tail()}")

    def alive(self) -> bool:
        return not self.dead and self.proc.poll() is None

    async def run(self, request: wire.Run, output: str) -> tuple[int, str]:
        """Run `request` (its id is given here); its output is read here at `output`, which is
        `request.output` unless the server runs in a sandbox and sees it elsewhere."""
        rid, pending = next(self.ids), _Pending(asyncio.get_running_loop())
        self.pending[rid] = pending
        timeout = request.timeout
        try:
            self._send(replace(request, id=rid))
            done = await asyncio.wait_for(asyncio.shield(pending.done), timeout + GRACE)
            code, timed_out, self.last_cpu = done
        except asyncio.TimeoutError:
            self._kill_run(rid, pending)
            timed_out, code = True, -9
        except BaseException:  # cancelled, or the server failed: never leave the child running
            self._kill_run(rid, pending)
            remove(output)
            raise
        finally:
            self.pending.pop(rid, None)
            self._close_if_retired()
        text = read_output(output)
        remove(output)
        if timed_out:
            raise RunTimedOut(text)
        return code, text

    def retire(self) -> None:
        """Stop after the runs in flight (closing stdin makes the server exit)."""
        self.retiring = True
        self._close_if_retired()

    def wait_exit(self, timeout: float) -> bool:
        try:
            self.proc.wait(timeout)
            return True
        except subprocess.TimeoutExpired:
            return False

    def kill(self) -> None:
        self.dead = True
        kill_group(self.proc.pid)

    def _close_if_retired(self) -> None:
        if self.retiring and not self.pending:
            try:
                self.stdin.close()
            except OSError:
                pass

    def _send(self, message: wire.Run | wire.Kill | wire.Exit) -> None:
        line = (wire.encode(message) + "\n").encode()
        try:
            with self.write_lock:
                self.stdin.write(line)
                self.stdin.flush()
        except (OSError, ValueError) as exc:
            raise WarmUnavailable(f"warm server gone: {exc}") from None

    def _kill_run(self, rid: int, pending: _Pending) -> None:
        try:
            self._send(wire.Kill(id=rid))
        except WarmUnavailable:
            if pending.pid and not self.foreign_pids:  # the server is dead; the child may live
                kill_group(pending.pid)

    def _read_replies(self) -> None:
        for line in self.stdout:
            try:
                self._dispatch(wire.decode(line))
            except (ValueError, KeyError, TypeError):
                break  # not our protocol: trust nothing more from this process
        self.dead = True
        self.ready.set()
        for pending in list(self.pending.values()):
            pending.settle(error=WarmUnavailable(f"warm server exited: {self._log_tail()}"))
        self._reap()

    def _dispatch(self, msg: object) -> None:
        pending = self.pending.get(getattr(msg, "id", -1))
        if isinstance(msg, wire.Ready):
            self.site_dirs = msg.site_dirs
            self.ready.set()
        elif isinstance(msg, wire.Learned):
            self.learned += msg.modules
            self.learned_rewritten.append(msg.rewritten)
        elif isinstance(msg, wire.Tainted):
            self.tainted = msg.module
        elif pending and isinstance(msg, wire.Started):
            pending.pid = msg.pid
        elif pending and isinstance(msg, wire.Done):
            pending.settle((msg.returncode, msg.timed_out, msg.cpu))
        elif pending and isinstance(msg, wire.Error):
            pending.settle(error=WarmUnavailable(msg.message, msg.kind))
        elif not isinstance(msg, (wire.Started, wire.Done, wire.Error)):
            raise TypeError(f"not an answer: {msg!r}")  # a request: not our protocol

    def _reap(self) -> None:
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            kill_group(self.proc.pid)
            self.proc.wait()

    def _log_tail(self) -> str:
        try:
            self.log.seek(0)
            lines = self.log.read().decode("utf-8", "replace").strip().splitlines()
            return lines[-1] if lines else "no output"
        except (OSError, ValueError):
            return "no log"


def read_output(path: str, limit: int = OUTPUT_LIMIT) -> str:
    """The run's output; when huge, its head and tail (like the cold runner keeps)."""
    try:
        with open_exchange(path) as file:
            size = os.fstat(file.fileno()).st_size
            if size <= limit:
                return file.read().decode("utf-8", "replace")
            head = file.read(limit // 4)
            file.seek(size - (limit - limit // 4))
            tail = file.read()
    except OSError:
        return ""
    cut = f"\n... [{size - len(head) - len(tail)} bytes of output cut] ...\n"
    return head.decode("utf-8", "replace") + cut + tail.decode("utf-8", "replace")


def remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
