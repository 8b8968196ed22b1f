"""Workspace folders (multi-root): one `Folder` per folder, each with its own root, settings,
failures (WorkspaceState), runs and warm runner; workspace/didChangeWorkspaceFolders adds and
drops them.

Feature code is written against "the server for this folder": it reads `ls.root`,
`ls.settings`, `ls.state` and `ls.runs`. A Folder holds those itself and passes the shared
state and client requests handlers use on to `folder.server` through explicit typed members
(no attribute delegation), so one handler serves any folder: the handler picks the folder of
the file (or test) it was asked about and passes it on.
"""

from __future__ import annotations

import os

from lsprotocol import types

from heal_ls.lsp.log import guarded, logger, spawn
from heal_ls.lsp.workspace.documents import inside, uri_to_path
from heal_ls.lsp.workspace.folder import Folder


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


def folder_for(ls, path: str | None):
    """The folder holding `path` (the innermost when folders nest), or None."""
    if not path:
        return None
    holding = [f for f in ls.folders if inside(f.root, path)]
    return max(holding, key=lambda f: len(f.root)) if holding else None


def folder_of_test(ls, test: str):
    """The folder whose failures include `test` (a nodeid or failure id), else None."""
    for folder in ls.folders:
        if folder.state.find(test) is not None:
            return folder
    return None


async def start_folder(ls, folder: Folder) -> None:
    """A new folder: its settings, then a run or a warm start, and following pytest's cache."""
    from heal_ls.lsp.runs import lastfailed
    from heal_ls.lsp.workspace.config import pull_configuration

    await pull_configuration(folder)
    last_failed = folder.lastfailed.failed_at_start()
    if folder.settings.runOnStartup:
        logger.info("runOnStartup: running the tests of %s", folder.root)
        # its own task, not the background slot: a save must not cancel the full run
        ls.startup_runs.append(spawn(folder.runs.tests(None), "startup run"))
    elif last_failed:  # the user's last runs failed: show those (the run warms the runner)
        logger.info("%d test(s) failed in the last pytest run of %s", len(last_failed), folder.root)
        ls.startup_runs.append(spawn(folder.runs.tests(last_failed), "last-failed run"))
    else:
        ls.startup_runs.append(spawn(folder.runs.prewarm(), "warm runner start"))
    await lastfailed.follow(folder)


async def drop_folder(ls, folder: Folder) -> None:
    """A removed folder: stop its work, forget its failures, clear its diagnostics."""
    from heal_ls.lsp.failures import diagnostics
    from heal_ls.lsp.runs import lastfailed
    from heal_ls.lsp.workspace import status

    lastfailed.stop(folder)
    if folder.runs.background is not None and not folder.runs.background.done():
        folder.runs.background.cancel()
    ls.folders.remove(folder)
    diagnostics.publish(ls)
    status.notify(ls)


def register(server) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    @guarded
    async def on_folders(ls, params: types.DidChangeWorkspaceFoldersParams):
        from heal_ls.lsp.workspace.config import apply_settings

        for removed in params.event.removed or []:
            path = uri_to_path(removed.uri)
            for folder in [f for f in ls.folders if f.root == path]:
                logger.info("workspace folder removed: %s", folder.root)
                await drop_folder(ls, folder)
        for added in params.event.added or []:
            path = uri_to_path(added.uri)
            if not path or not os.path.isdir(path) or any(f.root == path for f in ls.folders):
                continue
            folder = Folder(ls, path, added.uri)
            apply_settings(folder, ls.init_options, "initializationOptions")
            ls.folders.append(folder)
            logger.info("workspace folder added: %s", folder.root)
            await start_folder(ls, folder)
