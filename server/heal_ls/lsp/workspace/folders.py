"""Workspace folders (multi-root): one `Folder` per folder, each with its own root, settings,
failures, runs and warm runner; workspace/didChangeWorkspaceFolders adds and drops them. A
folder starts with its settings, then a run or a warm start, and follows pytest's cache.

Paths and test ids from a client are checked here against the folders (`in_workspace`,
`node_id`): a bad one is an InvalidParams error that says why.
"""

from __future__ import annotations

import os

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from heal_ls.lsp.failures import diagnostics
from heal_ls.lsp.log import guarded, logger
from heal_ls.lsp.runs import lastfailed, run
from heal_ls.lsp.workspace import status
from heal_ls.lsp.workspace.configuration import apply_settings, pull_configuration
from heal_ls.lsp.workspace.documents import inside, uri_to_path
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.server import HealLanguageServer


def in_workspace(
    server: HealLanguageServer, value: str | None, command: str, what: str = "uri"
) -> tuple[Folder, str]:
    """(folder, file path) from a uri (or a plain path when what='script', relative to the
    first folder)."""
    path = None
    if isinstance(value, str):
        path = uri_to_path(value) if value.startswith("file:") else None
        if path is None and what == "script":
            first = server.folders[0].root if server.folders else os.getcwd()
            path = os.path.abspath(os.path.join(first, value))
    if path is None:
        raise JsonRpcInvalidParams(f"{command}: {what} must be a file uri, got {value!r}")
    folder = server.folder_for(path)
    if folder is None:
        roots = ", ".join(f.root for f in server.folders)
        raise JsonRpcInvalidParams(f"{command}: {path} is outside the workspace {roots}")
    return folder, path


def node_id(folder: Folder, value: str, command: str) -> str:
    """A pytest node id from a client: never an option (`-...`), its file inside the folder.
    Options belong in the `pytestArgs` setting, the one place the user chooses them."""
    if not value.strip():
        raise JsonRpcInvalidParams(f"{command}: pass {{'test': nodeid}}, got {value!r}")
    file_part = value.split("::", 1)[0]
    if value.startswith("-") or any(c in value for c in "\0\r\n") or not file_part:
        raise JsonRpcInvalidParams(f"{command}: not a test id: {value!r}")
    path = os.path.join(folder.root, file_part)
    if not inside(folder.root, path):
        raise JsonRpcInvalidParams(f"{command}: {value!r} is outside the workspace {folder.root}")
    return value


async def start_folder(server: HealLanguageServer, folder: Folder) -> None:
    """A new folder: its settings, then a run or a warm start, and following pytest's cache."""
    await pull_configuration(server, folder)
    last_failed = lastfailed.failed_at_start(folder)
    if folder.settings.runOnStartup:
        logger.info("runOnStartup: running the tests of %s", folder.root)
        # its own task, not the background slot: a save must not cancel the full run
        server.run_task(run.tests(server, folder, None), "startup run")
    elif last_failed:  # the user's last runs failed: show those (the run warms the runner)
        logger.info("%d test(s) failed in the last pytest run of %s", len(last_failed), folder.root)
        server.run_task(run.tests(server, folder, last_failed), "last-failed run")
    else:
        server.run_task(run.prewarm(folder), "warm runner start")
    await lastfailed.follow(server, folder)


async def drop_folder(server: HealLanguageServer, folder: Folder) -> None:
    """A removed folder: stop its work, forget its failures, clear its diagnostics."""
    folder.lastfailed.stop()
    folder.runs.cancel_background()
    server.folders.remove(folder)
    diagnostics.publish(server)
    status.notify(server)


def register(server: HealLanguageServer) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    @guarded
    async def on_folders(
        server: HealLanguageServer, params: types.DidChangeWorkspaceFoldersParams
    ) -> None:
        for removed in params.event.removed or []:
            path = uri_to_path(removed.uri)
            for folder in [f for f in server.folders if f.root == path]:
                logger.info("workspace folder removed: %s", folder.root)
                await drop_folder(server, folder)
        for added in params.event.added or []:
            path = uri_to_path(added.uri)
            if not path or not os.path.isdir(path) or any(f.root == path for f in server.folders):
                continue
            folder = Folder(path, added.uri)
            apply_settings(server, folder, server.init_options, "initializationOptions")
            server.folders.append(folder)
            logger.info("workspace folder added: %s", folder.root)
            await start_folder(server, folder)
