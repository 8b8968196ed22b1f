"""The warm runner: run a PytestInvocation by forking a process that already imported pytest.

One warm server (warm_server.py, under the user's interpreter) per (python, root). It is restarted
when pytest configuration (conftest.py, pyproject.toml, pytest.ini, setup.cfg, tox.ini), the
installed packages or the interpreter's PYTHON* environment change; on any doubt (server died,
protocol error) the run falls back to a cold `python -m pytest`. Timeouts and cancellation kill the
run's whole process group. Timeouts raise WarmTimeout (a TimeoutError) carrying the output so far.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import hashlib
import json
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from platformdirs import user_cache_dir

from heal_ls.payload import from_object, to_json
from heal_ls.testing import sandbox as sandboxing
from heal_ls.testing.agent import heal_env
from heal_ls.testing.agent import heal_protocol as wire
from heal_ls.testing.prestart import COVERAGE_FILE
from heal_ls.testing.sandbox import Sandbox, make_sandbox
from heal_ls.testing.sandbox_policy import SandboxPolicy, as_policy
from heal_ls.testing.sandbox_view import View, per_run
from heal_ls.testing.warm import process as warm_process
from heal_ls.testing.warm.cold import WarmTimeout, run_cold, run_limits, warm_output_path
from heal_ls.testing.warm.fingerprint import Key, fingerprint

if TYPE_CHECKING:
    from heal_ls.testing.invocation import PytestInvocation

log = logging.getLogger(__name__)
CACHE_DIR = os.environ.get("HEAL_LS_WARM_CACHE") or user_cache_dir("heal-ls", appauthor=False)
# Bytecode of third-party code and pytest's hash-checked rewritten asserts, used when the user's
# environment turns bytecode writing off (see warm_child._choose_bytecode_cache).
PYCACHE = os.path.join(CACHE_DIR, "warm-pycache")
LEARNED_DIR = os.path.join(CACHE_DIR, "warm-learned")  # preload lists, one file per runner
MAX_FAILURES = 3
IO_INSIDE = "/run/heal-ls-io"  # where a sandboxed server sees its exchange folder (reports, output)
# The files a sandboxed run reads, copied into its exchange folder: (variable, file name there)
EXCHANGED = (
    (heal_env.OVERLAY, "overlay.json"),
    (heal_env.SELECT, "select.json"),
    (heal_env.SEAL, "seal"),
)


@dataclass
class Remembered:
    """A runner's preload lists kept between sessions (LEARNED_DIR, one file per runner)."""

    plain: list[str]  # modules preloaded plainly
    rewritten: list[str]  # and assert-rewritten
    marked: list[str]  # modules pytest marked for rewriting
    prefix: str | None  # the rewritten bytecode's cache tag
    excluded: list[str]  # never preloaded again


@dataclass
class RewrittenSeen:
    """The assert-rewritten preloads a runner learned (carried across restarts, sent to each new
    server as its ServerOptions' wire.Rewritten)."""

    names: dict[str, None] = field(default_factory=dict)  # ordered set
    marked: set[str] = field(default_factory=set)  # modules pytest marked for rewriting
    prefix: str | None = None  # the rewritten bytecode's cache tag


class WarmRunner:
    """Runs invocations on a warm server for one (python, root); falls back to cold runs."""

    def __init__(self, python: str, root: str, policy: SandboxPolicy | None = None):
        """policy: this runner's server runs inside the sandbox, for candidate runs only."""
        self.python, self.root = python, os.path.realpath(root)
        self.policy = policy
        self.boxed: dict[SandboxPolicy, WarmRunner] = {}  # sandboxed twins, one per policy
        self.io_dir: str | None = None  # host side of IO_INSIDE (sandboxed runners)
        self.view: View | None = None  # what the sandboxed server sees (runs remount its tmpfs)
        self.server: warm_process.ServerProcess | None = None
        self.key: Key | None = None
        self.learned: dict[str, None] = {}  # ordered set, carried across restarts
        self.rewritten = RewrittenSeen()
        self.rewritten_ok = True  # False once a run's config did not fit rewritten preloads
        self.excluded: set[str] = set()
        self.restarts = 0
        self.cold_runs = 0
        self.failures = 0  # consecutive; at MAX_FAILURES every run goes cold
        self.last_cpu = 0.0  # CPU seconds of the last warm run (for benchmarks)
        self.warned = False  # the "running cold" warning was given
        self._starting: tuple[asyncio.AbstractEventLoop, asyncio.Future[None]] | None = None
        self._load_learned()

    async def run(
        self, inv: PytestInvocation, timeout: float, *, sandbox: SandboxPolicy | bool | None = False
    ) -> tuple[int, str]:
        """(returncode, output) of `python -m pytest inv.argv`. sandbox=True or a SandboxPolicy
        runs it on a twin server that lives inside the sandbox (see sandbox.py); raises
        NotIsolated when no sandbox works here and the policy does not allow going on."""
        policy = as_policy(sandbox)
        if self.policy is not None:
            return await self._run_boxed(inv, timeout)
        if policy is not None and sandboxing.level() != "none":
            if policy not in self.boxed:
                self.boxed[policy] = WarmRunner(self.python, self.root, policy)
            return await self.boxed[policy].run(inv, timeout)
        box = make_sandbox(inv.command, inv.env, policy, root=inv.root) if policy else None
        try:
            return await self._run(inv, timeout, box)
        finally:
            if box is not None:
                box.cleanup()

    async def _run_boxed(self, inv: PytestInvocation, timeout: float) -> tuple[int, str]:
        """Run on the sandboxed server: the report and every file the run reads (overlay, ids,
        seal) go through the exchange folder."""
        if self.io_dir is None:
            self.io_dir = tempfile.mkdtemp(prefix="heal-ls-warm-io-")
            atexit.register(shutil.rmtree, self.io_dir, True)  # the CLI exits without close()
        host = tempfile.mkdtemp(prefix="run-", dir=self.io_dir)
        inner = f"{IO_INSIDE}/{os.path.basename(host)}"
        assert self.policy is not None, "boxed runs have a policy"
        env = sandboxing.sandbox_env(inv.env, self.policy)
        env[heal_env.REPORT] = f"{inner}/report.jsonl"
        with contextlib.suppress(OSError):  # read live where the run writes it (ReportTail)
            os.symlink(os.path.join(host, "report.jsonl"), inv.report_path)
        # the files the run reads: the overlay, the ids a run of many keeps (agent/heal_select.py),
        # the report's secret (report.py; the plugin deletes it)
        for var, name in EXCHANGED:
            if inv.env.get(var):
                shutil.copyfile(inv.env[var], os.path.join(host, name))
                env[var] = f"{inner}/{name}"
        if COVERAGE_FILE in inv.env:  # where pytest-cov may write inside the box
            env[COVERAGE_FILE] = f"{inner}/coverage"
        try:
            return await self._run(inv, timeout, None, boxed=(env, host, inner))
        finally:
            with contextlib.suppress(OSError):
                os.replace(os.path.join(host, "report.jsonl"), inv.report_path)
            shutil.rmtree(host, ignore_errors=True)

    async def prewarm(self, inv: PytestInvocation, timeout: float = 120.0) -> bool:
        """Start the server and let it learn what to preload, off the critical path (e.g. when a
        workspace opens); inv is best built with pytest_args=["--collect-only"]. Never raises."""
        try:
            await self.run(inv, timeout)
            return self.server is not None
        except Exception:  # noqa: BLE001 - prewarming is only ever an optimisation
            return False

    async def _run(
        self,
        inv: PytestInvocation,
        timeout: float,
        box: Sandbox | None,
        boxed: tuple[dict[str, str], str, str] | None = None,
    ) -> tuple[int, str]:
        same_python = os.path.realpath(inv.python) == os.path.realpath(self.python)
        if not same_python or not hasattr(os, "fork") or self.failures >= MAX_FAILURES:
            self.cold_runs += 1  # another interpreter, Windows, or a server that keeps failing
            return await self._run_cold(inv, timeout, box)
        try:
            if boxed:
                env, host, inner = boxed
                server = await self._server_for(inv, env)
                output, inside = os.path.join(host, "out"), f"{inner}/out"
                fresh = per_run(self.view, IO_INSIDE, inner)
                limits: wire.Limits | None = replace(
                    run_limits(timeout), pid_namespace=True, fresh=fresh
                )
            else:
                env, limits = (box.env, run_limits(timeout)) if box else (inv.env, None)
                server = await self._server_for(inv, inv.env)
                output = inside = warm_output_path()
            request = wire.Run(
                id=0,  # ServerProcess.run numbers it
                argv=inv.argv,
                env=env,
                cwd=inv.cwd,
                output=inside,
                timeout=timeout,
                pycache=PYCACHE,
                sandbox=limits,
            )
            result = await server.run(request, output)
            self.last_cpu, self.failures = server.last_cpu, 0
            if server.learned or server.learned_rewritten:
                self._harvest(server)
                self._save_learned()
            return result
        except warm_process.RunTimedOut as exc:
            raise WarmTimeout(timeout, exc.output) from None
        except warm_process.WarmUnavailable as exc:
            # Said once per runner: an interpreter the warm server cannot serve would otherwise
            # repeat it for every run.
            level = logging.DEBUG if self.warned else logging.WARNING
            log.log(level, "warm runner unavailable (%s); running pytest cold", exc)
            self.warned = True
            self.rewritten_ok = self.rewritten_ok and exc.kind != wire.DOUBT
            if exc.kind == wire.DOUBT_PLAIN:
                self.excluded.add(str(exc))  # the module pytest wanted to rewrite
            self.failures += exc.kind not in (wire.DOUBT, wire.DOUBT_PLAIN)
            self._drop()
            self.cold_runs += 1
            return await self._run_cold(inv, timeout, box)

    async def _run_cold(
        self, inv: PytestInvocation, timeout: float, box: Sandbox | None
    ) -> tuple[int, str]:
        if self.policy is None:
            return await run_cold(inv, timeout, box)
        writable = [os.path.dirname(inv.report_path)]
        box = make_sandbox(inv.command, inv.env, self.policy, root=inv.root, writable=writable)
        try:
            return await run_cold(inv, timeout, box)
        finally:
            box.cleanup()

    async def _server_for(
        self, inv: PytestInvocation, env: dict[str, str]
    ) -> warm_process.ServerProcess:
        loop = asyncio.get_running_loop()
        while self._starting is not None and self._starting[0] is loop:
            await asyncio.shield(self._starting[1])  # concurrent runs share one start-up
        server = self.server
        key = fingerprint(self.root, inv.cwd, env, server.site_dirs if server else [])
        if server and server.alive() and key == self.key:
            return server
        if server:
            self._drop()
            self.restarts += 1
        self._starting = (loop, loop.create_future())
        try:
            self.server = self._start_server(inv, env)
            await self.server.wait_ready()
            self.key = fingerprint(self.root, inv.cwd, env, self.server.site_dirs)
            return self.server
        finally:
            self._starting[1].set_result(None)
            self._starting = None

    def _start_server(
        self, inv: PytestInvocation, env: dict[str, str]
    ) -> warm_process.ServerProcess:
        args = (self.python, self.root, dict(env), inv.cwd, self._options())
        if self.policy is None:
            return warm_process.ServerProcess(*args)
        assert self.io_dir is not None, "a sandboxed runner made its exchange folder first"
        box = make_sandbox(
            [self.python], env, self.policy, root=self.root, inside={self.io_dir: IO_INSIDE}
        )
        self.view = box.view
        return warm_process.ServerProcess(*args, prefix=box.prefix)

    def _options(self) -> wire.ServerOptions:
        rewritten = wire.Rewritten(
            list(self.rewritten.names),
            sorted(self.rewritten.marked),
            self.rewritten.prefix,
        )
        return wire.ServerOptions(
            preload=list(self.learned),
            rewritten=rewritten,
            exclude=sorted(self.excluded),
            rewritten_ok=self.rewritten_ok,
        )

    def _harvest(self, server: warm_process.ServerProcess) -> None:
        self.learned.update(dict.fromkeys(server.learned))
        for batch in server.learned_rewritten:
            self.rewritten.names.update(dict.fromkeys(batch.names))
            self.rewritten.marked.update(batch.marked)
            self.rewritten.prefix = self.rewritten.prefix or batch.prefix
        server.learned, server.learned_rewritten = [], []
        if server.tainted:
            self.excluded.add(server.tainted)
            self.learned.pop(server.tainted, None)

    def _learned_path(self) -> str:
        """Where the preload lists live between sessions, so a new session starts warm.
        Only module names: the server re-checks every one of them before importing it. A
        sandboxed twin keeps its own list: what candidates made it import never reaches the
        unsandboxed server."""
        kind = "boxed" if self.policy is not None else "plain"
        digest = hashlib.sha256(f"{self.python}\0{self.root}\0{kind}".encode()).hexdigest()[:16]
        return os.path.join(LEARNED_DIR, f"{digest}.json")

    def _load_learned(self) -> None:
        try:
            with open(self._learned_path(), encoding="utf-8") as file:
                data = from_object(Remembered, json.load(file))
            self.learned.update(dict.fromkeys(data.plain))
            self.rewritten.names.update(dict.fromkeys(data.rewritten))
            self.rewritten.marked.update(data.marked)
            self.rewritten.prefix = data.prefix
            self.excluded.update(data.excluded)
        except (OSError, ValueError, KeyError, TypeError):
            pass  # nothing learned yet, or from another version: learn again

    def _save_learned(self) -> None:
        path = self._learned_path()
        data = Remembered(
            plain=list(self.learned),
            rewritten=list(self.rewritten.names),
            marked=sorted(self.rewritten.marked),
            prefix=self.rewritten.prefix,
            excluded=sorted(self.excluded),
        )
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            temp = f"{path}.{os.getpid()}.tmp"
            with open(temp, "w", encoding="utf-8") as file:
                json.dump(to_json(data), file)
            os.replace(temp, path)
        except OSError:
            pass

    def _drop(self) -> None:
        if self.server:
            self._harvest(self.server)
            self.server.retire()
        self.server, self.key = None, None

    def close(self) -> None:
        for twin in self.boxed.values():
            twin.close()
        self._drop()
        if self.io_dir:
            shutil.rmtree(self.io_dir, ignore_errors=True)
            self.io_dir = None


_POOL: dict[tuple[str, str], WarmRunner] = {}


def get_warm_runner(python: str, root: str) -> WarmRunner:
    """The shared warm runner for this interpreter and workspace."""
    key = (python, os.path.realpath(root))
    if key not in _POOL:
        _POOL[key] = WarmRunner(*key)
    return _POOL[key]


async def shutdown_all() -> None:
    """Stop every warm server (they also stop on their own when idle or when we exit)."""
    runners = [r for runner in _POOL.values() for r in (runner, *runner.boxed.values())]
    servers = [runner.server for runner in runners if runner.server]
    for runner in _POOL.values():
        runner.close()  # runs in flight finish first; then the server sees EOF and exits
    _POOL.clear()
    for server in servers:
        if not await asyncio.to_thread(server.wait_exit, 10.0):
            server.kill()
