"""initialized / shutdown: start every folder (settings, a run or a warm start); at shutdown
cancel every task the server spawned and stop our children."""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types

from heal_ls.lsp.log import guarded, logger
from heal_ls.lsp.workspace import status
from heal_ls.lsp.workspace.folders import start_folder
from heal_ls.lsp.workspace.server import HealLanguageServer
from heal_ls.testing.warm.client import shutdown_all


def register(server: HealLanguageServer) -> None:
    @server.feature(types.INITIALIZED)
    @guarded
    async def on_initialized(server: HealLanguageServer, params: types.InitializedParams) -> None:
        status.notify(server)
        for folder in list(server.folders):
            await start_folder(server, folder)

    @server.feature(types.SHUTDOWN)
    @guarded
    async def on_shutdown(server: HealLanguageServer, params: Any = None) -> None:
        server.cancel_tasks()  # the heal, runs, fills, pollers
        for process in server.debug_processes:
            if process.returncode is None:
                process.kill()
        try:
            await asyncio.wait_for(shutdown_all(), 5.0)
        except Exception as exc:  # shutting down anyway
            logger.info("warm runners: %s", exc)
