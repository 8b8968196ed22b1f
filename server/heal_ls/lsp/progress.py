"""Server-created work-done progress ($/progress) with cancellation.

`Progress(ls, title, task)` creates a token with window/workDoneProgress/create when the client
supports it (the work goes on without progress when it refuses), and a
window/workDoneProgress/cancel for that token cancels `task`: the heal or the test run.
"""

from __future__ import annotations

import asyncio
import uuid

from lsprotocol import types

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

    async def __aenter__(self) -> Progress:
        if client_supports_progress(self.ls):
            token = f"heal-{uuid.uuid4().hex[:12]}"
            try:
                await asyncio.wait_for(self.ls.work_done_progress.create_async(token), 5.0)
                self.token = token
            except Exception as exc:  # the client refused or is slow: go on without progress
                logger.debug("no progress for %r: %s", self.title, exc)
        if self.token is not None:
            if self.task is not None:
                self.ls.progress_tasks[self.token] = self.task
            self.ls.work_done_progress.begin(
                self.token,
                types.WorkDoneProgressBegin(title=self.title, cancellable=self.cancellable),
            )
        return self

    def report(self, message: str, percentage: int | None = None) -> None:
        if self.token is not None and connected(self.ls):
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
        done = "cancelled" if exc_type is asyncio.CancelledError else "done"
        self.ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=done))


def register(server) -> None:
    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def on_cancel(ls, params: types.WorkDoneProgressCancelParams):
        task = ls.progress_tasks.get(params.token)
        if task is not None and not task.done():
            logger.info("cancelled by the user: %s", params.token)
            task.cancel()
