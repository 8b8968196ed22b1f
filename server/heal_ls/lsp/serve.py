"""`heal-ls serve`: the pygls language server (stdio, or --tcp HOST:PORT for debugging).

Each feature lives in its own module with a `register(server)`; a feature that fails to load is
logged and the others still serve. The server and what it holds: lsp/workspace/server.py.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import BinaryIO

from heal_ls import __version__
from heal_ls.lsp.log import logger, setup_logging
from heal_ls.lsp.workspace.server import HealLanguageServer

FEATURES = (
    "workspace.configuration",
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


def protocol_streams() -> tuple[BinaryIO, BinaryIO]:
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
