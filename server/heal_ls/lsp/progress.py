"""Server-created work-done progress ($/progress) with cancellation.

`Progress(server, folder, title, task)` creates a token with window/workDoneProgress/create when
the client supports it (the work goes on without progress when it refuses), and a
window/workDoneProgress/cancel for that token cancels `task` (the heal or the test run; set it
later with `watch`) and sets `cancelled_by_user`. Cancel an inner task, never the request's own:
pygls sends no response for a request task cancelled behind its back. Reports are masked with
the folder's known secrets.
"""

from __future__ import annotations

import asyncio
import uuid
from types import TracebackType
from typing import Any

from lsprotocol import types

from heal_ls.lsp.log import connected, logger
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.server import HealLanguageServer
from heal_ls.redact import hide_known, known_secrets


def client_supports_progress(server: HealLanguageServer) -> bool:
    window = server.client_capabilities.window
    return bool(window and window.work_done_progress)


class Progress:
    def __init__(
        self,
        server: HealLanguageServer,
        folder: Folder,
        title: str,
        task: asyncio.Future[Any] | None = None,
        cancellable: bool = True,
    ) -> None:
        self.server = server
        self.folder = folder
        self.title = title
        self.task = task
        self.cancellable = cancellable
        self.token: str | None = None
        self.cancelled_by_user = False

    def watch(self, task: asyncio.Future[Any]) -> None:
        self.task = task

    def cancel(self) -> None:
        if self.task is not None and not self.task.done():
            logger.info("cancelled by the user: %s", self.title)
            self.cancelled_by_user = True
            self.task.cancel()

    async def __aenter__(self) -> Progress:
        progress = self.server.work_done_progress
        if client_supports_progress(self.server):
            token = f"heal-{uuid.uuid4().hex[:12]}"
            try:
                await asyncio.wait_for(progress.create_async(token), 5.0)
                self.token = token
            except Exception as exc:  # the client refused or is slow: go on without progress
                logger.debug("no progress for %r: %s", self.title, exc)
        if self.token is not None:
            self.server.progress_cancels[self.token] = self.cancel
            progress.begin(
                self.token,
                types.WorkDoneProgressBegin(title=self.title, cancellable=self.cancellable),
            )
        return self

    def report(self, message: str, percentage: int | None = None) -> None:
        if self.token is not None and connected(self.server):
            # a test name or message a run printed may carry a secret: mask it before it goes
            message = hide_known(message, known_secrets(self.folder.root))
            self.server.work_done_progress.report(
                self.token, types.WorkDoneProgressReport(message=message, percentage=percentage)
            )

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.token is None:
            return
        self.server.progress_cancels.pop(self.token, None)
        self.server.work_done_progress.tokens.pop(self.token, None)
        if not connected(self.server):
            return
        cancelled = exc_type is asyncio.CancelledError or self.cancelled_by_user
        done = "cancelled" if cancelled else "done"
        self.server.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=done))


def register(server: HealLanguageServer) -> None:
    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def on_cancel(server: HealLanguageServer, params: types.WorkDoneProgressCancelParams) -> None:
        cancel = server.progress_cancels.get(str(params.token))
        if cancel is not None:
            cancel()
