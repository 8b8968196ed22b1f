"""One workspace folder's own state: its root, settings, failures, runs and the pytest cache
file it follows. A folder holds no server and stands in for none: handlers hold the server
(lsp/workspace/server.py) and ask it for the folder (`server.folder_for(path)`); what a run or
a heal does with a folder is in its feature (lsp/runs/run.py, lsp/heal/command.py)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any

from heal_ls.lsp.workspace.config import Settings
from heal_ls.lsp.workspace.state import WorkspaceState
from heal_ls.models import RunResult
from heal_ls.testing.lastfailed import lastfailed_path


class Runs:
    """A folder's runs: at most one in flight (`lock`), one background slot (a newer background
    run cancels the older), the impact map's fill (a run cancels it)."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.background: asyncio.Task[Any] | None = None
        self.running = False
        self.last_run: RunResult | None = None  # the last full run: its coverage guards heals
        # cancels the command-started run in flight (its Progress.cancel), None when none
        self.cancel_explicit: Callable[[], None] | None = None
        self.fill: asyncio.Task[None] | None = None  # the impact map's fill after a run

    def cancel_background(self) -> None:
        if self.background is not None and not self.background.done():
            self.background.cancel()

    def cancel_fill(self) -> None:
        if self.fill is not None and not self.fill.done():
            self.fill.cancel()


class LastFailedFile:
    """pytest's lastfailed file of a folder: what it was when last seen, and our poller of it
    (lsp/runs/lastfailed.py)."""

    def __init__(self, root: str) -> None:
        self.path = lastfailed_path(root)
        self.seen = self.signature()  # the file as it was when the folder opened is not news
        self.poller: asyncio.Task[None] | None = None

    def signature(self) -> tuple[int, int] | None:
        try:
            stat = os.stat(self.path)
        except OSError:
            return None
        return stat.st_mtime_ns, stat.st_size

    def stop(self) -> None:
        if self.poller is not None:
            self.poller.cancel()


class Folder:
    def __init__(self, root: str, uri: str | None = None) -> None:
        self.root = os.path.abspath(root)
        self.uri = uri  # the client's uri for this folder (settings scope)
        self.settings = Settings()
        self.settings_problems: set[str] = set()  # rejected values already reported
        self.state = WorkspaceState()
        self.runs = Runs()
        self.save_pending: set[str] = set()  # tests a debounced save will re-run
        # pytest's lastfailed as it is when the folder opens: later changes are the user's runs
        self.lastfailed = LastFailedFile(self.root)

    def __repr__(self) -> str:
        return f"Folder({self.root!r})"
