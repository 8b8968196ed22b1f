"""`heal-ls serve`: the pygls language server (stdio, or --tcp HOST:PORT for debugging).

The server object holds the shared state; each feature lives in its own module with a
`register(server)`. A feature that fails to load is logged and the others still serve.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import sys
from threading import Event
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from heal_ls import __version__
from heal_ls.lsp.log import connected, logger, setup_logging
from heal_ls.lsp.transport.cancel import HealProtocol
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.folders import folder_for, folder_roots

if TYPE_CHECKING:
    from heal_ls.lsp.failures.code_index import Indexes

FEATURES = (
    "workspace.config",
    "progress",
    "workspace.status",
    "workspace.lifecycle",
    "failures.code_actions",
    "failures.hover",
    "runs.commands",
    "heal.command",
    "runs.debug",
    "runs.on_save",
    "workspace.folders",
    "runs.lastfailed",
)


class HealLanguageServer(LanguageServer):
    def __init__(self):
        super().__init__("heal-ls", __version__, protocol_cls=HealProtocol)
        # one per workspace folder (root, settings, failures, runs); the first is the default
        self.folders: list[Folder] = [Folder(self, os.getcwd())]
        self.init_options: dict = {}  # initializationOptions: every folder's base settings
        self.lastfailed_watched = False  # the client watches lastfailed files for us
        self.startup_runs: list = []  # startup runs and warm starts, cancelled at shutdown
        self.progress_tasks: dict = {}  # progress token -> the task its cancel stops
        self.published_uris: set[str] = set()
        self.healing_target: str | None = None
        self.last_heal: dict | None = None  # the last heal's outcome and budget, for heal/status
        self.heal_task: asyncio.Future | None = None
        self.failed_features: dict[str, str] = {}
        self.indexes: Indexes | None = None  # code-action indexes (set by code_actions.register)
        self.debug_processes: list[asyncio.subprocess.Process] = []  # the debugpy session

    def set_folders(self, params: types.InitializeParams) -> None:
        roots = folder_roots(params)
        if roots:
            self.folders = [Folder(self, path, uri) for path, uri in roots]

    def folder_for(self, path: str | None) -> Folder | None:
        return folder_for(self, path)

    # The first folder's parts, for code that serves "the workspace" without a file in hand.
    @property
    def root(self) -> str:
        return self.folders[0].root if self.folders else os.getcwd()

    @property
    def settings(self):
        return self.folders[0].settings

    @property
    def state(self):
        return self.folders[0].state

    @property
    def runs(self):
        return self.folders[0].runs

    def start_io(self, stdin=None, stdout=None) -> None:
        """pygls's stdio loop, with our frame reader (lsp/transport/wire.py) in place of its own."""
        from pygls.io_ import StdoutWriter

        from heal_ls.lsp.transport import wire

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
            self.shutdown()

    def report_server_error(self, error: Exception, source) -> None:
        """Out-of-band errors (protocol noise, a notification that failed) are logged for the
        output channel, never popped up: pygls's default shows "Error in server: ..." to the user."""
        logger.error("server error (%s): %s: %s", source.__name__, type(error).__name__, error)

    def show(self, message: str, kind=types.MessageType.Info) -> None:
        """A one-line message for the user, also logged."""
        logger.log(40 if kind == types.MessageType.Error else 20, "%s", message)
        if connected(self):
            self.window_show_message(types.ShowMessageParams(type=kind, message=message))


def create_server() -> HealLanguageServer:
    server = HealLanguageServer()
    for name in FEATURES:
        try:
            importlib.import_module(f"heal_ls.lsp.{name}").register(server)
        except Exception as exc:  # keep serving the features that did load
            server.failed_features[name] = f"{type(exc).__name__}: {exc}"
    return server


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stdio", action="store_true", help="talk over stdio (the default)")
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP socket instead")
    parser.add_argument(
        "--log-file", help="log file (default: heal-ls-<pid>.log in the user state dir, owner-only)"
    )


def parse_host_port(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"--tcp wants HOST:PORT, got {text!r}")
    return host or "127.0.0.1", int(port)


def protocol_streams():
    """(stdin, stdout) for the protocol alone: fds 0/1 are then pointed at /dev/null and stderr,
    so a stray print or a child process can neither corrupt nor steal protocol bytes."""
    lsp_in = os.fdopen(os.dup(0), "rb")
    lsp_out = os.fdopen(os.dup(1), "wb")
    with open(os.devnull, "rb") as null:
        os.dup2(null.fileno(), 0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return lsp_in, lsp_out


def run(args: argparse.Namespace) -> int:
    server = create_server()
    log_path = setup_logging(server, getattr(args, "log_file", None))
    logger.info("heal-ls %s serving, log file %s", __version__, log_path)
    for name, error in server.failed_features.items():
        logger.error("feature %s unavailable: %s", name, error)
    if getattr(args, "tcp", None):
        host, port = parse_host_port(args.tcp)
        server.start_tcp(host, port)
    else:
        server.start_io(*protocol_streams())
    return 0
