"""Server-created work-done progress ($/progress) with cancellation.

`Progress(ls, title, task)` creates a token with window/workDoneProgress/create when the client
supports it (the work goes on without progress when it refuses), and a
window/workDoneProgress/cancel for that token cancels `task` (the heal or the test run; set it
later with `watch`) and sets `cancelled_by_user`. Cancel an inner task, never the request's own:
pygls sends no response for a request task cancelled behind its back.
"""

from __future__ import annotations

import asyncio
import uuid

from lsprotocol import types

from heal_ls.llm.redact import hide_known, known_secrets
from heal_ls.lsp.log import connected, logger


def client_supports_progress(ls) -> bool:
    window = ls.client_capabilities.window
    return bool(window and window.work_done_progress)


class Progress:
    def __init__(self, ls, title: str, task: asyncio.Task | None = None, cancellable=True):
        self.ls = ls
        self.title = title
        self.task = task
        self.cancellable = cancellable
        self.token: str | None = None
        self.cancelled_by_user = False

    def watch(self, task: asyncio.Task) -> None:
        self.task = task

    def cancel(self) -> None:
        if self.task is not None and not self.task.done():
            logger.info("cancelled by the user: %s", self.title)
            self.cancelled_by_user = True
            self.task.cancel()

    async def __aenter__(self) -> Progress:
        if client_supports_progress(self.ls):
            token = f"heal-{uuid.uuid4().hex[:12]}"
            try:
                await asyncio.wait_for(self.ls.work_done_progress.create_async(token), 5.0)
                self.token = token
            except Exception as exc:  # the client refused or is slow: go on without progress
                logger.debug("no progress for %r: %s", self.title, exc)
        if self.token is not None:
            self.ls.progress_tasks[self.token] = self
            self.ls.work_done_progress.begin(
                self.token,
                types.WorkDoneProgressBegin(title=self.title, cancellable=self.cancellable),
            )
        return self

    def report(self, message: str, percentage: int | None = None) -> None:
        if self.token is not None and connected(self.ls):
            # a test name or message a run printed may carry a secret: mask it before it goes
            message = hide_known(message, known_secrets(self.ls.root))
            self.ls.work_done_progress.report(
                self.token, types.WorkDoneProgressReport(message=message, percentage=percentage)
            )

    async def __aexit__(self, exc_type, exc, tb) -> None:
        if self.token is None:
            return
        self.ls.progress_tasks.pop(self.token, None)
        self.ls.work_done_progress.tokens.pop(self.token, None)
        if not connected(self.ls):
            return
        cancelled = exc_type is asyncio.CancelledError or self.cancelled_by_user
        done = "cancelled" if cancelled else "done"
        self.ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=done))


def register(server) -> None:
    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def on_cancel(ls, params: types.WorkDoneProgressCancelParams):
        progress = ls.progress_tasks.get(params.token)
        if progress is not None:
            progress.cancel()
