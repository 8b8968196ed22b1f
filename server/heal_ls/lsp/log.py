"""Logging: a log file, window/logMessage, and guards that keep one feature's error local.

Every handler registered through `guarded` logs its exception (with traceback in the file, one
line in the editor) instead of taking the server down; background tasks go through the server's
`run_task` (lsp/workspace/server.py), which logs theirs.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import logging
import os
from collections.abc import Callable
from typing import Any, TypeVar, cast

from lsprotocol import types
from platformdirs import user_state_dir
from pygls.lsp.server import LanguageServer

from heal_ls.redact import redact

logger = logging.getLogger("heal_ls")
F = TypeVar("F", bound=Callable[..., Any])


def connected(server: LanguageServer) -> bool:
    """False once the client asked us to shut down: nothing more may be sent."""
    protocol = server.protocol
    return getattr(protocol, "writer", None) is not None and not getattr(protocol, "_shutdown", 0)


class RedactFilter(logging.Filter):
    """Secrets (the environment's, in every form, and credentials in URLs) never reach the log
    file or the client."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


class ClientLogHandler(logging.Handler):
    """Forward heal_ls log records to the client as window/logMessage."""

    LEVELS = {
        logging.ERROR: types.MessageType.Error,
        logging.WARNING: types.MessageType.Warning,
        logging.INFO: types.MessageType.Info,
    }

    def __init__(self, server: LanguageServer) -> None:
        super().__init__(logging.INFO)
        self.server = server

    def emit(self, record: logging.LogRecord) -> None:
        kind = self.LEVELS.get(record.levelno, types.MessageType.Log)
        if not connected(self.server):
            return  # not connected yet (or any more): the log file has it
        try:
            message = record.getMessage()
            self.server.window_log_message(types.LogMessageParams(type=kind, message=message))
        except Exception:  # a closed pipe must not turn logging into a crash
            pass


KEPT_LOGS = 20  # older server logs are removed when a new server starts


def log_dir() -> str:
    """The user's own state folder (never the shared temp dir): logs may hold code and paths."""
    return os.environ.get("HEAL_LS_LOG_DIR") or os.path.join(
        user_state_dir("heal-ls", appauthor=False), "logs"
    )


def default_log_path() -> str:
    folder = log_dir()
    os.makedirs(folder, mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)
    old = sorted(_logs(folder))
    for _, path in old[: max(0, len(old) - KEPT_LOGS + 1)]:
        with contextlib.suppress(OSError):
            os.unlink(path)
    return os.path.join(folder, f"heal-ls-{os.getpid()}.log")


def _logs(folder: str) -> list[tuple[float, str]]:
    """(mtime, path) of the server logs there. Servers starting at once prune the same folder:
    a log another one removed since the listing is skipped, not a failed start."""
    found = []
    for entry in os.scandir(folder):
        if entry.name.startswith("heal-ls-"):
            with contextlib.suppress(OSError):
                if entry.is_file():
                    found.append((entry.stat().st_mtime, entry.path))
    return found


def setup_logging(server: LanguageServer, log_file: str | None) -> str:
    """Log to `log_file` (default: a file in the user's state dir, owner-only) and to the
    client; return the path."""
    path = log_file or default_log_path()
    logger.setLevel(logging.DEBUG)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
    os.chmod(path, 0o600)
    file_handler = logging.FileHandler(path, encoding="utf-8")
    file_handler.addFilter(RedactFilter())
    file_handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(file_handler)
    logger.addHandler(ClientLogHandler(server))
    return path


def guarded(handler: F) -> F:
    """Log a handler's exception; requests still get an error response (we re-raise)."""

    def report(exc: BaseException) -> None:
        logger.error("%s failed: %s: %s", handler.__name__, type(exc).__name__, exc)
        logger.debug("traceback of %s", handler.__name__, exc_info=exc)

    if inspect.iscoroutinefunction(handler):

        @functools.wraps(handler)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return await handler(*args, **kwargs)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                report(exc)
                raise

        return cast(F, async_wrapper)

    @functools.wraps(handler)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return handler(*args, **kwargs)
        except Exception as exc:
            report(exc)
            raise

    return cast(F, wrapper)
