"""The LSP tests' servers, forked from one process per test worker that has imported their
libraries once: lsprotocol's ~1000 attrs classes, pygls and cattrs cost ~0.7 of the ~1.2 s of
CPU a bare server start takes, and nearly every test in tests/lsp starts a server of its own
(the folder on two workers: 327 -> 289 CPU-s, every process counted).

Each server is still a process of its own on the test's stdio pipes, with the test's environment
and folder, and runs `heal-ls serve`'s code from the start. The parent has also imported the
server's modules and what a heal loads (the openai SDK, ~1 CPU-s a heal; libcst): every
environment variable those imports read is noted with its value, and a server whose environment
gives one of them another value refuses to start, naming it (an import that read the parent's
value would be stale). `python server_fork.py SOCKET` is the parent;
`LAUNCH` is the small process pytest-lsp starts in place of the server: it hands its stdin,
stdout and stderr, environment and folder to the parent, and exits with the server's exit code
once the server is gone. If the launcher dies, its server does too.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading

PRELOAD = (
    *("lsprotocol.types", "pygls.lsp.server", "cattrs", "attrs", "asyncio", "sqlite3"),
    *("heal_ls.lsp.serve", "heal_ls.diagnose", "heal_ls.heal.loop", "heal_ls.heal.plan"),
    *("heal_ls.llm.openai_compat", "libcst"),
)
# Set by the server's own code (helpers/lsp.SERVE: a cache folder per server), after the fork.
SET_AFTER_THE_FORK = ("HEAL_LS_CACHE_DIR",)
HEADER = struct.Struct("!Q")

# The launcher, run as `python -I -S -c LAUNCH SOCKET CODE`: no site, so it starts in ~10 ms.
LAUNCH = """
import json, os, socket, struct, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
spec = json.dumps({"cwd": os.getcwd(), "env": dict(os.environ), "code": sys.argv[2]}).encode()
socket.send_fds(s, [struct.pack("!Q", len(spec))], [0, 1, 2])
s.sendall(spec)
code = s.recv(1)
while s.recv(4096):  # until the server has exited, not just returned
    pass
sys.exit(code[0] if code else 1)
"""


class ForkServer:
    """The parent process, started at the first server a test worker needs: `command` turns a
    `python -c CODE` server command into its launcher's."""

    def __init__(self) -> None:
        self.folder = ""
        self.process: subprocess.Popen[bytes] | None = None

    def command(self, command: list[str]) -> list[str]:
        if command[:2] != [sys.executable, "-c"]:
            return command
        if self.process is None:
            self.folder = tempfile.mkdtemp(prefix="heal-fork-")
            self.process = subprocess.Popen(
                [sys.executable, __file__, os.path.join(self.folder, "s")],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
            )
            assert self.process.stdout is not None
            assert self.process.stdout.readline() == b"ready\n"
        launch = [sys.executable, "-I", "-S", "-c", LAUNCH, os.path.join(self.folder, "s")]
        return [*launch, *command[2:]]

    def close(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            shutil.rmtree(self.folder, ignore_errors=True)
            self.process = None


def _read_exactly(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


class _ReadsNoted(os._Environ):
    """os.environ, noting which variables are read (get, in, getenv and [] all go through
    __getitem__); a walk over all of them is noted as "*"."""

    def __init__(self, environ: os._Environ) -> None:
        vars(self).update(vars(environ))  # the same variables: one dict, one putenv
        self.read: set[str] = set()

    def __getitem__(self, key: str) -> str:
        self.read.add(key)
        return super().__getitem__(key)

    def __iter__(self):
        self.read.add("*")
        return super().__iter__()


def preload(names: tuple[str, ...] = PRELOAD) -> dict[str, str | None]:
    """Import `names`; return the variables the imports read, with their values."""
    real = os.environ
    noted = os.environ = _ReadsNoted(real)  # noqa: B003 - the same variables, their reads noted
    try:
        for name in names:
            __import__(name)
    finally:
        os.environ = real  # noqa: B003
    unsafe = sorted(noted.read & {"*", *SET_AFTER_THE_FORK})
    if unsafe:  # "*": the whole environment was walked
        raise SystemExit(f"server_fork: PRELOAD's imports read {unsafe}")
    return {name: real.get(name) for name in noted.read}


def changed(read: dict[str, str | None]) -> list[str]:
    """The variables PRELOAD's imports read that this environment sets otherwise."""
    return sorted(name for name, value in read.items() if os.environ.get(name) != value)


def _serve(conn: socket.socket, fds: list[int], spec: dict, read: dict[str, str | None]) -> None:
    """In the forked child: become the launcher's server process, then run the server."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(spec["cwd"])
    os.environ.clear()
    os.environ.update(spec["env"])
    stale = changed(read)
    if stale:  # before anything is sent: the test fails at its start, saying why
        conn.sendall(b"\x01")
        raise SystemExit(f"server_fork: PRELOAD's imports read {stale}, set otherwise here")
    sys.path[0] = ""  # as under `python -c`
    sys.argv = ["-c"]

    def die_with_the_launcher() -> None:
        conn.recv(1)  # the launcher sends nothing: this returns when it is gone
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=die_with_the_launcher, daemon=True).start()
    code = 1
    try:
        exec(compile(spec["code"], "<string>", "exec"), {"__name__": "__main__"})
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
        raise
    finally:
        conn.sendall(bytes([code & 0xFF]))  # the socket closes when this process ends


def main(path: str) -> None:
    read = preload()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the children are reaped by the kernel
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path)
    listener.listen()
    print("ready", flush=True)
    while True:
        conn, _ = listener.accept()
        msg, fds, _, _ = socket.recv_fds(conn, HEADER.size, 3)
        spec = json.loads(_read_exactly(conn, HEADER.unpack(msg)[0]))
        if os.fork() == 0:
            listener.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            _serve(conn, fds, spec, read)
            return  # not reached unless the server's code returned: exit as `python -c` does
        conn.close()
        for fd in fds:
            os.close(fd)


if __name__ == "__main__":
    main(sys.argv[1])
