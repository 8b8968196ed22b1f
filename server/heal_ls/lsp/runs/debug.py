"""heal.debugTest {test}: start the test under debugpy and return where to attach.

Runs `python -m debugpy --listen 127.0.0.1:<free port> --wait-for-client -m pytest <nodeid>` in
the workspace (pytest's arguments from testing/invocation.pytest_arguments, without heal-ls's
plugin) and answers {host, port, test, pid} once debugpy listens. The process is killed
after `LIFETIME` seconds, on the next debugTest, and at shutdown.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import tempfile
import time
from typing import IO, Any

from pygls.exceptions import JsonRpcInternalError, JsonRpcInvalidParams

from heal_ls.lsp.arguments import DebugTestArgs, convert
from heal_ls.lsp.log import guarded, logger
from heal_ls.lsp.protocol import DEBUG_TEST, DebugTarget
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.folders import node_id
from heal_ls.lsp.workspace.server import HealLanguageServer
from heal_ls.payload import to_object
from heal_ls.testing.invocation import pytest_arguments

HOST = "127.0.0.1"
LIFETIME = 600.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def is_listening(port: int) -> bool | None:
    """Whether something listens on 127.0.0.1:port, from /proc (None where there is no /proc).

    Probing with a connection would be taken by debugpy as the debugger attaching."""
    wanted = f":{port:04X}"
    found_table = False
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as rows:
                found_table = True
                for row in rows.readlines()[1:]:
                    cols = row.split()
                    if cols[1].endswith(wanted) and cols[3] == "0A":  # 0A = LISTEN
                        return True
        except OSError:
            continue
    return False if found_table else None


async def wait_listening(
    process: asyncio.subprocess.Process, port: int, errors: IO[bytes], timeout: float = 20.0
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.returncode is not None:
            errors.seek(0)
            err = errors.read().decode(errors="replace").strip()
            raise JsonRpcInternalError(f"{DEBUG_TEST}: debugpy exited: {err[-500:]}")
        state = is_listening(port)
        if state is None:  # no /proc: give debugpy a moment
            await asyncio.sleep(1.5)
            return
        if state:
            return
        await asyncio.sleep(0.05)
    process.kill()
    raise JsonRpcInternalError(f"{DEBUG_TEST}: debugpy did not listen within {timeout:.0f}s")


def command_line(folder: Folder, nodeid: str, port: int) -> list[str]:
    python = folder.settings.python or sys.executable
    debugpy = ["-m", "debugpy", "--listen", f"{HOST}:{port}", "--wait-for-client"]
    # a pytest cache of its own: the user's lastfailed untouched, their `--lf` still an option
    cache = os.path.join(tempfile.gettempdir(), "heal-ls-debug-pytest-cache")
    pytest = pytest_arguments(folder.root, folder.settings.pytestArgs, [nodeid], cache_dir=cache)
    return [python, *debugpy, "-m", "pytest", *pytest]


async def kill_later(process: asyncio.subprocess.Process, seconds: float) -> None:
    try:
        await asyncio.wait_for(process.wait(), seconds)
    except asyncio.TimeoutError:
        process.kill()


async def start_debug(server: HealLanguageServer, folder: Folder, nodeid: str) -> DebugTarget:
    for old in server.debug_processes:
        if old.returncode is None:
            old.kill()
    port = free_port()
    # a file, not a pipe: nobody has to keep reading it; it lives as long as the process
    errors = tempfile.TemporaryFile()  # noqa: SIM115
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (folder.root, env.get("PYTHONPATH")) if p)
    process = await asyncio.create_subprocess_exec(
        *command_line(folder, nodeid, port),
        cwd=folder.root,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=errors,
    )
    server.debug_processes = [process]
    await wait_listening(process, port, errors)
    server.run_task(kill_later(process, LIFETIME), "debug session lifetime")
    logger.info("debugpy waits on %s:%d for %s (pid %d)", HOST, port, nodeid, process.pid)
    return DebugTarget(host=HOST, port=port, test=nodeid, pid=process.pid)


def register(server: HealLanguageServer) -> None:
    @server.command(DEBUG_TEST)
    @guarded
    async def debug_test(server: HealLanguageServer, *args: Any) -> dict[str, Any]:
        given = convert(args, DebugTestArgs, DEBUG_TEST)
        if given.test is not None:
            folder = server.folder_of_test(given.test) or server.folders[0]
            nodeid = node_id(folder, given.test, DEBUG_TEST)
        else:  # no argument: the only failing test
            known = [k for f in server.folders for k in f.state.known.values() if k.failure.test]
            if len(known) != 1 or known[0].failure.test is None:
                raise JsonRpcInvalidParams(f"{DEBUG_TEST}: pass {{'test': nodeid}}")
            nodeid = known[0].failure.test
            folder = server.folder_of_test(nodeid) or server.folders[0]
        return to_object(await start_debug(server, folder, nodeid))
