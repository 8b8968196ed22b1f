"""The language server object: the workspace folders and what they share.

Every attribute is declared, with what it holds, in `__init__` (no attribute is added at run
time). A folder's own state (root, settings, failures, runs) is in its `Folder`
(lsp/workspace/folder.py); handlers hold this server and ask it for the folder of a file
(`folder_for`) or of a test (`folder_of_test`). Background work goes through `run_task`, the one
owner of the tasks the server spawns.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable, Coroutine
from threading import Event
from typing import Any, BinaryIO, TypeVar

from lsprotocol import types
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from heal_ls import __version__
from heal_ls.lsp.log import connected, logger
from heal_ls.lsp.protocol import HEALS, RUNS, HealOutcome, LastHeal
from heal_ls.lsp.transport import wire
from heal_ls.lsp.transport.cancel import HealProtocol
from heal_ls.lsp.workspace.documents import inside, uri_to_path
from heal_ls.lsp.workspace.folder import Folder

T = TypeVar("T")


def folder_roots(params: types.InitializeParams) -> list[tuple[str, str | None]]:
    """(root path, uri) of every folder the client opened; the root uri/path if none."""
    found: list[tuple[str, str | None]] = []
    for folder in params.workspace_folders or []:
        path = uri_to_path(folder.uri)
        if path and os.path.isdir(path):
            found.append((path, folder.uri))
    if found:
        return found
    path = uri_to_path(params.root_uri) if params.root_uri else params.root_path
    if path and os.path.isdir(path):
        return [(os.path.abspath(path), params.root_uri)]
    return []


class HealLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("heal-ls", __version__, protocol_cls=HealProtocol)
        self.folders: list[Folder] = [Folder(os.getcwd())]
        """One per workspace folder (replaced at initialize); the first serves a command that
        names no file."""
        self.init_options: dict[str, Any] = {}
        """initializationOptions: every folder's base settings."""
        self.tasks: set[asyncio.Task[Any]] = set()
        """Every task the server spawned (`run_task`), kept until it is done: asyncio holds
        only weak references to tasks. Cancelled at shutdown."""
        self.heal_task: asyncio.Task[HealOutcome] | None = None
        """The heal in flight (one at a time, whatever its folder); a cancel stops it."""
        self.healing_target: str | None = None
        """The function being healed, for heal/status."""
        self.last_heal: LastHeal | None = None
        """The last heal's outcome and budget, for heal/status."""
        self.progress_cancels: dict[str, Callable[[], None]] = {}
        """Work-done progress token -> what its cancel stops (lsp/progress.py)."""
        self.published_uris: set[str] = set()
        """Documents whose last published diagnostics were not empty."""
        self.failure_listeners: list[Callable[[], None]] = []
        """Called when a folder's failures changed (the code-action indexes rebuild)."""
        self.lastfailed_watched = False
        """The client watches pytest's lastfailed files for us (lsp/runs/lastfailed.py)."""
        self.debug_processes: list[asyncio.subprocess.Process] = []
        """The debugpy session of heal.debugTest."""
        self.failed_features: dict[str, str] = {}
        """Feature modules that failed to load -> why (lsp/serve.py)."""
        self.folder_of_path: dict[tuple[str, tuple[str, ...]], Folder | None] = {}
        """(path, the folders' roots) -> the folder holding the path: `folder_for` resolves
        symlinks, too slow for every code action."""
        protocol = self.protocol
        assert isinstance(protocol, HealProtocol)
        protocol.on_cancelled_command = self.cancel_command

    def run_task(self, coro: Coroutine[Any, Any, T], name: str) -> asyncio.Task[T]:
        """Run `coro` as a background task: kept (in `tasks`) until it is done, its failure
        logged, never lost."""
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)

        def done(finished: asyncio.Task[T]) -> None:
            self.tasks.discard(finished)
            if finished.cancelled():
                logger.debug("%s cancelled", name)
            elif (exc := finished.exception()) is not None:
                logger.error("%s failed: %s: %s", name, type(exc).__name__, exc)
                logger.debug("traceback of %s", name, exc_info=exc)

        task.add_done_callback(done)
        return task

    def cancel_tasks(self) -> None:
        """Cancel every task the server spawned (at shutdown)."""
        for task in list(self.tasks):
            task.cancel()

    def set_folders(self, params: types.InitializeParams) -> None:
        """One folder per workspace folder the client opened (else its root)."""
        roots = folder_roots(params)
        if roots:
            self.folders = [Folder(path, uri) for path, uri in roots]

    def folder_for(self, path: str | None) -> Folder | None:
        """The folder holding `path` (the innermost when folders nest), or None; resolved once
        per path while the folders stay the same."""
        if not path:
            return None
        key = (path, tuple(f.root for f in self.folders))
        if key not in self.folder_of_path:
            if len(self.folder_of_path) > 10_000:
                self.folder_of_path.clear()
            holding = [f for f in self.folders if inside(f.root, path)]
            self.folder_of_path[key] = max(holding, key=lambda f: len(f.root)) if holding else None
        found = self.folder_of_path[key]
        if found is not None and all(f is not found for f in self.folders):  # replaced: again
            del self.folder_of_path[key]
            return self.folder_for(path)
        return found

    def folder_of_uri(self, uri: str) -> Folder | None:
        return self.folder_for(uri_to_path(uri))

    def folder_of_test(self, test: str) -> Folder | None:
        """The folder whose failures include `test` (a nodeid or failure id), else None."""
        for folder in self.folders:
            if folder.state.find(test) is not None:
                return folder
        return None

    def failures_changed(self) -> None:
        """A folder's failures changed outside a run's publish: tell the listeners."""
        for listener in self.failure_listeners:
            listener()

    def cancel_command(self, command: str) -> None:
        """The client cancelled one of our commands: stop the heal or the explicit run."""
        logger.info("client cancelled %s", command)
        if command in HEALS and self.heal_task is not None and not self.heal_task.done():
            self.heal_task.cancel()
        elif command in RUNS:
            for folder in self.folders:
                if folder.runs.cancel_explicit is not None:
                    folder.runs.cancel_explicit()

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """pygls's stdio loop, with our frame reader (lsp/transport/wire.py) in place of its own."""
        self._stop_event = Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        reader = wire.FrameReader(stdin or sys.stdin.buffer, self.thread_pool)
        try:
            asyncio.run(wire.serve(reader, self.protocol, self._stop_event))
        except BrokenPipeError:
            logger.error("the connection to the client is lost; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]  # pygls leaves it untyped

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Out-of-band errors (protocol noise, a notification that failed) are logged for the
        output channel, never popped up: pygls's default shows "Error in server: ..." to the user."""
        logger.error("server error (%s): %s: %s", source.__name__, type(error).__name__, error)

    def show(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        """A one-line message for the user, also logged."""
        logger.log(40 if kind == types.MessageType.Error else 20, "%s", message)
        if connected(self):
            self.window_show_message(types.ShowMessageParams(type=kind, message=message))
