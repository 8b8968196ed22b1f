"""Following the user's own pytest runs (heal.followPytestRuns, default on).

pytest rewrites `.pytest_cache/v/cache/lastfailed` (or the `cache_dir` its config names, under
its rootdir: testing/lastfailed.py) after a run in a terminal, the Test Explorer,
a task or a CI checkout. When that file of a folder changes, the tests it names, plus the ones
heal-ls still shows as failing (the user's run may have fixed them), are re-run in the
background on the warm runner: that gives structured failures, located and published as usual.

The change is noticed by checking the file's signature every POLL_SECONDS, and sooner by the
client's file watcher when it offers dynamic registration for workspace/didChangeWatchedFiles
(one registration serves every folder). The watcher alone can miss it: pytest makes
.pytest_cache atomically (a temporary folder renamed into place) and writes v/cache/lastfailed
right after, likely before VS Code's watcher watches the new subfolders. In VS Code 1.139 the
run that made the file was never reported, and in 2 of 3 runs of tests/vscode none of the next
runs' rewrites were either. heal-ls's own runs never write that cache (each has a pytest cache
of its own, `-o cache_dir=...`), so they do not trigger themselves.
"""

from __future__ import annotations

import asyncio
import os

from lsprotocol import types

from heal_ls.lsp.log import guarded, logger
from heal_ls.lsp.runs import run
from heal_ls.lsp.workspace.documents import uri_to_path
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.server import HealLanguageServer
from heal_ls.testing.lastfailed import LASTFAILED, read_lastfailed

POLL_SECONDS = 0.5
SETTLE_SECONDS = 0.1  # the client may tell us while pytest is still writing the file
WATCHER_ID = "heal-lastfailed"
GLOB = "**/.pytest_cache/v/cache/lastfailed"


def failed_at_start(folder: Folder) -> list[str]:
    """The tests pytest's cache says failed before the folder opened (when followed)."""
    if folder.lastfailed.seen is None or not folder.settings.followPytestRuns:
        return []
    return read_lastfailed(folder.root) or []


def check(server: HealLanguageServer, folder: Folder) -> None:
    """Re-run the user's failed tests if the folder's file changed since we last read it."""
    follower = folder.lastfailed
    signature = follower.signature()
    logger.debug("lastfailed %s: %s (was %s)", follower.path, signature, follower.seen)
    if signature == follower.seen or signature is None:
        return
    failed = read_lastfailed(folder.root)
    if failed is None:
        return  # half written: the next check reads it whole
    follower.seen = signature
    if not folder.settings.followPytestRuns:
        return
    tests = set(failed) | set(folder.state.failing_tests()) | folder.save_pending
    if tests:
        logger.info(
            "pytest's lastfailed changed in %s: re-running %d test(s)", folder.root, len(tests)
        )
        run.in_background(server, folder, sorted(tests))


async def poll(server: HealLanguageServer, folder: Folder) -> None:
    while True:
        await asyncio.sleep(POLL_SECONDS)
        check(server, folder)


def client_watches(server: HealLanguageServer) -> bool:
    workspace = server.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace else None
    return bool(watched and watched.dynamic_registration)


async def register_watcher(server: HealLanguageServer) -> bool:
    """Ask the client to watch every folder's lastfailed file; False if it refused."""
    if server.lastfailed_watched:
        return True
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern=GLOB)]
    )
    registration = types.Registration(
        id=WATCHER_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options
    )
    try:
        await asyncio.wait_for(
            server.client_register_capability_async(types.RegistrationParams([registration])), 5.0
        )
    except Exception as exc:  # refused or no answer: we watch ourselves
        logger.info("the client does not watch lastfailed for us (%s): polling", exc)
        return False
    server.lastfailed_watched = True
    return True


async def follow(server: HealLanguageServer, folder: Folder) -> None:
    """Start following the folder's lastfailed file: our own poller always (see the top), the
    client's watcher too where it offers one. A cache elsewhere (a `cache_dir` option, a rootdir
    above the folder) is outside what the client's watcher sees."""
    follower = folder.lastfailed
    usual = follower.path == os.path.join(folder.root, LASTFAILED)
    if usual and client_watches(server):
        await register_watcher(server)
    if follower.poller is None or follower.poller.done():
        follower.poller = server.run_task(poll(server, folder), f"lastfailed poller {folder.root}")


def register(server: HealLanguageServer) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @guarded
    async def on_watched(
        server: HealLanguageServer, params: types.DidChangeWatchedFilesParams
    ) -> None:
        changed = {uri_to_path(change.uri) for change in params.changes}
        logger.debug("watched files changed: %s", sorted(p for p in changed if p))
        folders = [f for f in server.folders if f.lastfailed.path in changed]
        if folders:
            await asyncio.sleep(SETTLE_SECONDS)
        for folder in folders:
            check(server, folder)
