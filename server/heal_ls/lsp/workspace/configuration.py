"""A folder's settings from the client: initializationOptions at initialize, then its `heal`
section through workspace/configuration (scoped to the folder's uri), pulled again on
workspace/didChangeConfiguration. The settings themselves: lsp/workspace/config.py."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from heal_ls.lsp.log import guarded, logger
from heal_ls.lsp.workspace.config import parse_settings
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.server import HealLanguageServer


def apply_settings(server: HealLanguageServer, folder: Folder, raw: Any, origin: str) -> None:
    """Replace a folder's settings; each rejected value is shown once and logged."""
    folder.settings, problems = parse_settings(raw)
    for problem in problems:
        if problem not in folder.settings_problems:  # the same bad value is reported once
            server.show(f"heal: {problem}", types.MessageType.Warning)
    folder.settings_problems = set(problems)
    logger.info("settings of %s from %s: %s", folder.root, origin, folder.settings)


async def pull_configuration(server: HealLanguageServer, folder: Folder) -> None:
    """Ask the client for the folder's `heal` section (scoped to the folder's uri) when it
    supports workspace/configuration."""
    workspace = server.client_capabilities.workspace
    if not (workspace and workspace.configuration):
        return
    item = types.ConfigurationItem(scope_uri=folder.uri, section="heal")
    params = types.ConfigurationParams(items=[item])
    try:
        result = await server.workspace_configuration_async(params)
    except Exception as exc:
        server.show(f"heal: could not read settings: {exc}", types.MessageType.Warning)
        return
    if result and isinstance(result[0], dict):
        apply_settings(server, folder, {"heal": result[0]}, "workspace/configuration")


def register(server: HealLanguageServer) -> None:
    @server.feature(types.INITIALIZE)
    @guarded
    def on_initialize(server: HealLanguageServer, params: types.InitializeParams) -> None:
        server.set_folders(params)
        server.init_options = params.initialization_options or {}
        for folder in server.folders:
            apply_settings(server, folder, server.init_options, "initializationOptions")

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    @guarded
    async def on_change(
        server: HealLanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        settings = params.settings
        for folder in server.folders:
            if isinstance(settings, dict) and isinstance(settings.get("heal"), dict):
                apply_settings(server, folder, settings, "didChangeConfiguration")
            await pull_configuration(server, folder)
