"""workspace/configuration that the client fails to answer: the folder keeps its settings and
the user is told, the server goes on (lsp/workspace/configuration.py)."""

from __future__ import annotations

import asyncio

from heal_ls.lsp.serve import create_server
from heal_ls.lsp.workspace.configuration import pull_configuration
from heal_ls.lsp.workspace.folder import Folder
from lsprotocol import types as t


def test_a_failed_configuration_request_keeps_the_settings_and_says_so(tmp_path, monkeypatch):
    server = create_server()
    capabilities = t.ClientCapabilities(workspace=t.WorkspaceClientCapabilities(configuration=True))
    monkeypatch.setattr(server.protocol, "client_capabilities", capabilities, raising=False)

    async def refuse(params):
        raise RuntimeError("the client went away")

    monkeypatch.setattr(server, "workspace_configuration_async", refuse)
    shown: list[tuple[str, t.MessageType]] = []
    monkeypatch.setattr(server, "show", lambda message, kind: shown.append((message, kind)))
    folder = Folder(str(tmp_path))
    before = folder.settings
    asyncio.run(pull_configuration(server, folder))
    assert shown == [("heal: could not read settings: the client went away", t.MessageType.Warning)]
    assert folder.settings is before
