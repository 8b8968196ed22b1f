"""One workspace folder: its own root, settings, failures, runs and lastfailed follower, plus
typed passthroughs to the server's shared state (`SharedServer`) for the handlers that serve it.
There is no attribute delegation: every member a handler uses is declared, so mypy checks it."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from lsprotocol import types

if TYPE_CHECKING:
    from pygls.progress import Progress
    from pygls.protocol import LanguageServerProtocol
    from pygls.workspace import Workspace

    from heal_ls.lsp.failures.code_index import Indexes


class SharedServer(Protocol):
    """What a Folder reaches on the server (HealLanguageServer): declared here, not imported, so
    the server (which holds the folders) and the folder do not import each other."""

    folders: list[Folder]
    init_options: dict
    lastfailed_watched: bool
    startup_runs: list
    progress_tasks: dict
    published_uris: set[str]
    healing_target: str | None
    last_heal: dict | None
    heal_task: asyncio.Future | None
    failed_features: dict[str, str]
    indexes: Indexes | None
    debug_processes: list[asyncio.subprocess.Process]

    @property
    def protocol(self) -> LanguageServerProtocol: ...
    @property
    def workspace(self) -> Workspace: ...
    @property
    def client_capabilities(self) -> types.ClientCapabilities: ...
    @property
    def work_done_progress(self) -> Progress: ...
    def folder_for(self, path: str | None) -> Folder | None: ...
    def show(self, message: str, kind: types.MessageType = ...) -> None: ...
    def window_log_message(self, params: types.LogMessageParams) -> None: ...
    def text_document_publish_diagnostics(self, params: types.PublishDiagnosticsParams) -> None: ...
    def window_show_message_request_async(
        self, params: types.ShowMessageRequestParams
    ) -> Awaitable[types.MessageActionItem | None]: ...
    def window_show_document_async(
        self, params: types.ShowDocumentParams
    ) -> Awaitable[types.ShowDocumentResult]: ...
    def workspace_configuration_async(
        self, params: types.ConfigurationParams
    ) -> Awaitable[Sequence[Any]]: ...
    def workspace_apply_edit_async(
        self, params: types.ApplyWorkspaceEditParams
    ) -> Awaitable[types.ApplyWorkspaceEditResult]: ...
    def client_register_capability_async(
        self, params: types.RegistrationParams
    ) -> Awaitable[None]: ...


class Folder:
    """One workspace folder's own state, plus typed passthroughs to the server's shared state
    and client requests, so handlers written against "the server for this folder" are checked."""

    def __init__(self, server: SharedServer, root: str, uri: str | None = None):
        from heal_ls.lsp.runs.lastfailed import LastFailed
        from heal_ls.lsp.runs.run import Runs
        from heal_ls.lsp.workspace.config import Settings
        from heal_ls.lsp.workspace.state import WorkspaceState

        self.server = server
        self.root = os.path.abspath(root)
        self.uri = uri  # the client's uri for this folder (settings scope)
        self.settings = Settings()
        self.settings_problems: set[str] = set()  # rejected values already reported
        self.state = WorkspaceState()
        self.runs = Runs(self)
        self.save_pending: set[str] = set()  # tests a debounced save will re-run
        # pytest's lastfailed as it is when the folder opens: later changes are the user's runs
        self.lastfailed = LastFailed(self)

    def __repr__(self) -> str:
        return f"Folder({self.root!r})"

    # The server's shared state, read and written through the folder.
    @property
    def folders(self) -> list[Folder]:
        return self.server.folders

    @property
    def init_options(self) -> dict:
        return self.server.init_options

    @property
    def startup_runs(self) -> list:
        return self.server.startup_runs

    @property
    def progress_tasks(self) -> dict:
        return self.server.progress_tasks

    @property
    def failed_features(self) -> dict[str, str]:
        return self.server.failed_features

    @property
    def indexes(self) -> Indexes | None:
        return self.server.indexes

    @property
    def published_uris(self) -> set[str]:
        return self.server.published_uris

    @published_uris.setter
    def published_uris(self, value: set[str]) -> None:
        self.server.published_uris = value

    @property
    def lastfailed_watched(self) -> bool:
        return self.server.lastfailed_watched

    @lastfailed_watched.setter
    def lastfailed_watched(self, value: bool) -> None:
        self.server.lastfailed_watched = value

    @property
    def healing_target(self) -> str | None:
        return self.server.healing_target

    @healing_target.setter
    def healing_target(self, value: str | None) -> None:
        self.server.healing_target = value

    @property
    def last_heal(self) -> dict | None:
        return self.server.last_heal

    @last_heal.setter
    def last_heal(self, value: dict | None) -> None:
        self.server.last_heal = value

    @property
    def heal_task(self) -> asyncio.Future | None:
        return self.server.heal_task

    @heal_task.setter
    def heal_task(self, value: asyncio.Future | None) -> None:
        self.server.heal_task = value

    @property
    def debug_processes(self) -> list[asyncio.subprocess.Process]:
        return self.server.debug_processes

    @debug_processes.setter
    def debug_processes(self, value: list[asyncio.subprocess.Process]) -> None:
        self.server.debug_processes = value

    # pygls's parts and the client requests handlers make.
    @property
    def protocol(self) -> LanguageServerProtocol:
        return self.server.protocol

    @property
    def workspace(self) -> Workspace:
        return self.server.workspace

    @property
    def client_capabilities(self) -> types.ClientCapabilities:
        return self.server.client_capabilities

    @property
    def work_done_progress(self) -> Progress:
        return self.server.work_done_progress

    def folder_for(self, path: str | None) -> Folder | None:
        return self.server.folder_for(path)

    def show(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.server.show(message, kind)

    def window_log_message(self, params: types.LogMessageParams) -> None:
        self.server.window_log_message(params)

    def text_document_publish_diagnostics(self, params: types.PublishDiagnosticsParams) -> None:
        self.server.text_document_publish_diagnostics(params)

    def window_show_message_request_async(
        self, params: types.ShowMessageRequestParams
    ) -> Awaitable[types.MessageActionItem | None]:
        return self.server.window_show_message_request_async(params)

    def window_show_document_async(
        self, params: types.ShowDocumentParams
    ) -> Awaitable[types.ShowDocumentResult]:
        return self.server.window_show_document_async(params)

    def workspace_configuration_async(
        self, params: types.ConfigurationParams
    ) -> Awaitable[Sequence[Any]]:
        return self.server.workspace_configuration_async(params)

    def workspace_apply_edit_async(
        self, params: types.ApplyWorkspaceEditParams
    ) -> Awaitable[types.ApplyWorkspaceEditResult]:
        return self.server.workspace_apply_edit_async(params)

    def client_register_capability_async(self, params: types.RegistrationParams) -> Awaitable[None]:
        return self.server.client_register_capability_async(params)
