"""Following the user's own pytest runs (heal.followPytestRuns, default on).

pytest rewrites `.pytest_cache/v/cache/lastfailed` (or the `cache_dir` its config names, under
its rootdir: testing/lastfailed.py) after a run in a terminal, the Test Explorer,
a task or a CI checkout. When that file of a folder changes, the tests it names, plus the ones
heal-ls still shows as failing (the user's run may have fixed them), are re-run in the
background on the warm runner: that gives structured failures, located and published as usual.

The change is noticed by the client's file watcher when it offers dynamic registration for
workspace/didChangeWatchedFiles (one registration serves every folder), else by checking the
file's signature every POLL_SECONDS. heal-ls's own runs never write that cache (each has a
pytest cache of its own, `-o cache_dir=...`), so they do not trigger themselves.
"""

from __future__ import annotations

import asyncio
import os

from lsprotocol import types

from heal_ls.lsp.log import guarded, logger, spawn
from heal_ls.lsp.workspace.documents import uri_to_path
from heal_ls.testing.lastfailed import LASTFAILED, lastfailed_path, read_lastfailed

POLL_SECONDS = 0.5
SETTLE_SECONDS = 0.1  # the client may tell us while pytest is still writing the file
WATCHER_ID = "heal-lastfailed"
GLOB = "**/.pytest_cache/v/cache/lastfailed"


class LastFailed:
    """One folder's lastfailed file: what it was when last seen, and the poller if any."""

    def __init__(self, folder):
        self.folder = folder
        self.path = lastfailed_path(folder.root)
        self.seen = self.signature()  # the file as it was when we started is not news
        self.poller: asyncio.Task | None = None

    def failed_at_start(self) -> list[str]:
        """The tests pytest's cache says failed before the folder opened (when followed)."""
        if self.seen is None or not self.folder.settings.followPytestRuns:
            return []
        return read_lastfailed(self.folder.root) or []

    def signature(self) -> tuple[int, int] | None:
        try:
            stat = os.stat(self.path)
        except OSError:
            return None
        return stat.st_mtime_ns, stat.st_size

    def check(self) -> None:
        """Re-run the user's failed tests if the file changed since we last read it."""
        signature = self.signature()
        logger.debug("lastfailed %s: %s (was %s)", self.path, signature, self.seen)
        if signature == self.seen or signature is None:
            return
        failed = read_lastfailed(self.folder.root)
        if failed is None:
            return  # half written: the next check reads it whole
        self.seen = signature
        folder = self.folder
        if not folder.settings.followPytestRuns:
            return
        tests = set(failed) | set(folder.state.failing_tests()) | folder.save_pending
        if tests:
            logger.info(
                "pytest's lastfailed changed in %s: re-running %d test(s)", folder.root, len(tests)
            )
            folder.runs.in_background(sorted(tests))

    async def poll(self) -> None:
        while True:
            await asyncio.sleep(POLL_SECONDS)
            self.check()


def client_watches(ls) -> bool:
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace else None
    return bool(watched and watched.dynamic_registration)


async def register_watcher(ls) -> bool:
    """Ask the client to watch every folder's lastfailed file; False if it refused."""
    if ls.lastfailed_watched:
        return True
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern=GLOB)]
    )
    registration = types.Registration(
        id=WATCHER_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options
    )
    try:
        await asyncio.wait_for(
            ls.client_register_capability_async(types.RegistrationParams([registration])), 5.0
        )
    except Exception as exc:  # refused or no answer: we watch ourselves
        logger.info("the client does not watch lastfailed for us (%s): polling", exc)
        return False
    ls.lastfailed_watched = True
    return True


async def follow(folder) -> None:
    """Start following the folder's lastfailed file (client watcher, else our own poller). A
    cache elsewhere (a `cache_dir` option, a rootdir above the folder) is outside what the
    client's watcher sees: we watch it ourselves."""
    usual = folder.lastfailed.path == os.path.join(folder.root, LASTFAILED)
    if usual and client_watches(folder) and await register_watcher(folder.server):
        return
    follower = folder.lastfailed
    if follower.poller is None or follower.poller.done():
        follower.poller = spawn(follower.poll(), f"lastfailed poller {folder.root}")


def stop(folder) -> None:
    follower = folder.lastfailed
    if follower.poller is not None:
        follower.poller.cancel()


def register(server) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @guarded
    async def on_watched(ls, params: types.DidChangeWatchedFilesParams):
        changed = {uri_to_path(change.uri) for change in params.changes}
        logger.debug("watched files changed: %s", sorted(p for p in changed if p))
        followers = [f.lastfailed for f in ls.folders if f.lastfailed.path in changed]
        if followers:
            await asyncio.sleep(SETTLE_SECONDS)
        for follower in followers:
            follower.check()
