"""The warm pytest server: a long-lived process that has imported pytest and forks one child per run.

Runs under the USER's interpreter, so it is stdlib + pytest only, shipped as files put on sys.path
(like the pytest plugin). Started by heal_ls.testing.warm.process as `python warm_server.py ROOT
OPTIONS_JSON` (a heal_protocol.ServerOptions). The messages are heal_protocol's dataclasses, one
JSON line each, requests on stdin, replies on the original stdout (fd 1 is then pointed at
stderr, so stray prints cannot corrupt them):
  <- Ready
  -> Run   <- Started, then Done or Error (the client then runs it cold)
  -> Kill   -> Exit   <- Learned | Tainted
Workspace modules are never imported here (checked before every fork), so children import them
fresh. The server exits when stdin closes (its parent died), on "exit", or after IDLE seconds.
"""

from __future__ import annotations

import gc
import json
import os
import select
import signal
import sys
import threading
import time
from dataclasses import dataclass

import heal_protocol as wire
import warm_child
import warm_rules

IDLE_SECONDS = float(os.environ.get("HEAL_LS_WARM_IDLE", "600"))


def exit_code(status: int) -> int:
    """-N when signal N ended the child, else its exit code (os has a helper only from 3.9)."""
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


@dataclass
class Child:
    """A forked run: its request, when it must end, whether it was stopped for that."""

    request: wire.Run
    deadline: float
    timed_out: bool = False


class WarmServer:
    def __init__(self, root: str, options: wire.ServerOptions):
        self.root = os.path.realpath(root)
        self.exclude = set(options.exclude)
        self.rewritten_ok = options.rewritten_ok
        self.out = os.fdopen(os.dup(1), "w", buffering=1)  # protocol channel
        os.dup2(2, 1)  # stray prints from imported modules must not corrupt the protocol
        self.children: dict[int, Child] = {}  # pid -> its run
        self.pending_learn: wire.Imported | None = None  # since the last Learned
        self.last_activity = time.monotonic()
        self.wakeup_r, self.wakeup_w = os.pipe()
        os.set_blocking(self.wakeup_w, False)
        signal.set_wakeup_fd(self.wakeup_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        self.base_path = warm_rules.base_sys_path(self.root)
        # a run's sys.path as this interpreter set it up, workspace folders its .pth files add
        # included (`pip install -e .` of a src/ layout): `python -m pytest` has them too
        self.run_path = [p for p in sys.path if p]
        self.preload(["pytest"])
        warm_rules.warm_rewritten.baseline.update(sys.modules)
        self.preload(options.preload)
        self.preload_rewritten(options.rewritten)
        self.send(wire.Ready(pid=os.getpid(), python=sys.version, site_dirs=self.site_dirs()))

    def send(self, message: object) -> None:
        self.out.write(wire.encode(message) + "\n")

    def site_dirs(self) -> list[str]:
        return [p for p in self.base_path if os.path.isdir(p)]

    def preload(self, names: list[str]) -> None:
        """Import third-party modules; refuse anything from the workspace or starting threads."""
        for name in names:
            if name in sys.modules or warm_rules.excluded(name, self.exclude):
                continue
            warm_rules.quiet_import(name)
            if threading.active_count() > 1:
                self.send(wire.Tainted(module=name))
                raise SystemExit(3)  # the client restarts us with this module excluded
        warm_rules.assert_no_workspace_modules(self.root)
        warm_rules.fill_pure_caches()

    def serve(self) -> None:
        stdin = sys.stdin.fileno()
        buffer = b""
        while True:
            ready, _, _ = select.select([stdin, self.wakeup_r], [], [], self.wait_seconds())
            if self.wakeup_r in ready:
                os.read(self.wakeup_r, 512)
            self.reap()
            self.enforce_deadlines()
            if stdin in ready:
                data = os.read(stdin, 65536)
                if not data:
                    return  # parent gone
                buffer += data
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    if line.strip() and self.handle(wire.decode(line)) == wire.EXIT:
                        return
            if not self.children:
                self.learn()
                if time.monotonic() - self.last_activity > IDLE_SECONDS:
                    return

    def wait_seconds(self) -> float:
        deadlines = [c.deadline for c in self.children.values()]
        if deadlines:
            return max(0.0, min(deadlines) - time.monotonic())
        return max(0.1, IDLE_SECONDS - (time.monotonic() - self.last_activity))

    def handle(self, request: object) -> str | None:
        self.last_activity = time.monotonic()
        if isinstance(request, wire.Exit):
            return wire.EXIT
        if isinstance(request, wire.Kill):
            for pid, child in self.children.items():
                if child.request.id == request.id:
                    self.kill(pid, child)
        elif isinstance(request, wire.Run):
            self.start(request)
        return None

    def start(self, request: wire.Run) -> None:
        try:
            warm_rules.assert_no_workspace_modules(self.root)
            sys.stdout.flush()
            sys.stderr.flush()
            gc.freeze()  # children's collections skip our objects: no copy-on-write of the heap
            pid = os.fork()
        except Exception as exc:  # noqa: BLE001 - any doubt goes back to the client
            self.send(wire.Error(id=request.id, message=f"{type(exc).__name__}: {exc}"))
            return
        if pid == 0:
            fds = [self.out.fileno(), self.wakeup_r, self.wakeup_w]
            warm_child.run_child(request, self.root, (self.base_path, self.run_path), fds)
        try:
            os.setpgid(pid, pid)  # also done by the child; whichever runs first wins the race
        except OSError:
            pass
        deadline = time.monotonic() + float(request.timeout or 3600)
        self.children[pid] = Child(request, deadline)
        self.send(wire.Started(id=request.id, pid=pid))

    def kill(self, pid: int, child: Child, timed_out: bool = False) -> None:
        child.timed_out = child.timed_out or timed_out
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def enforce_deadlines(self) -> None:
        now = time.monotonic()
        for pid, child in list(self.children.items()):
            if now >= child.deadline:
                self.kill(pid, child, timed_out=True)
                child.deadline = now + 1.0  # SIGKILL is on its way; check again later

    def reap(self) -> None:
        for pid in list(self.children):
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done == 0:
                continue
            child = self.children.pop(pid)
            code = exit_code(status)
            cpu = round(usage.ru_utime + usage.ru_stime, 4)
            run = child.request
            doubt = warm_rules.warm_rewritten.take_doubt(run.output)
            if doubt:
                self.send(wire.Error(id=run.id, message=doubt.message, kind=doubt.kind))
                continue
            # Read what the child learned before saying Done: the client then removes the run's
            # exchange folder (a sandboxed run's), and a loaded machine lets it win that race.
            self.merge_learned(warm_rules.read_learned(run.output))
            self.send(wire.Done(id=run.id, returncode=code, timed_out=child.timed_out, cpu=cpu))
            self.last_activity = time.monotonic()

    def merge_learned(self, learned: wire.Imported) -> None:
        pending = self.pending_learn
        if pending is None:  # the first run since the last Learned sets the prefix
            pending = self.pending_learn = wire.Imported(prefix=learned.prefix)
        pending.plain = list(dict.fromkeys(pending.plain + learned.plain))
        pending.rewritten = list(dict.fromkeys(pending.rewritten + learned.rewritten))
        pending.marked = sorted(set(pending.marked) | set(learned.marked))

    def learn(self) -> None:
        """Preload what finished children imported from outside the workspace (between runs)."""
        learned, self.pending_learn = self.pending_learn or wire.Imported(), None
        plain = [n for n in learned.plain if n not in sys.modules]
        rewritten = [n for n in learned.rewritten if n not in sys.modules]
        if plain or rewritten:
            batch = wire.Rewritten(rewritten, learned.marked, learned.prefix)
            self.preload(plain)
            self.preload_rewritten(batch)
            self.send(wire.Learned(modules=plain, rewritten=batch))

    def preload_rewritten(self, learned: wire.Rewritten) -> None:
        names = [n for n in learned.names if not warm_rules.excluded(n, self.exclude)]
        if self.rewritten_ok and names:
            rewritten = warm_rules.warm_rewritten
            rewritten.import_rewritten(names, learned.marked, learned.prefix, self.preload_one)

    def preload_one(self, name: str) -> None:
        self.preload([name])

    def shutdown(self) -> None:
        for pid, child in list(self.children.items()):
            self.kill(pid, child)


def main() -> int:
    del sys.path[0]  # our own folder: its modules must not shadow the user's
    root = sys.argv[1]
    options = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
    server = WarmServer(root, wire.build(wire.ServerOptions, options))
    try:
        server.serve()
    finally:
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
