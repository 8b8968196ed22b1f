"""initialized / shutdown: pull the settings, optionally run the tests, stop our children."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from heal_ls.lsp.log import guarded, logger
from heal_ls.lsp.runs import lastfailed
from heal_ls.lsp.workspace import status
from heal_ls.lsp.workspace.folders import start_folder


def register(server) -> None:
    @server.feature(types.INITIALIZED)
    @guarded
    async def on_initialized(ls, params: types.InitializedParams):
        status.notify(ls)
        for folder in list(ls.folders):
            await start_folder(ls, folder)

    @server.feature(types.SHUTDOWN)
    @guarded
    async def on_shutdown(ls, params=None):
        backgrounds = [folder.runs.background for folder in ls.folders]
        for task in (ls.heal_task, *backgrounds, *ls.startup_runs):
            if task is not None and not task.done():
                task.cancel()
        for folder in ls.folders:
            lastfailed.stop(folder)
        for process in ls.debug_processes:
            if process.returncode is None:
                process.kill()
        try:
            from heal_ls.testing.warm.client import shutdown_all

            await asyncio.wait_for(shutdown_all(), 5.0)
        except Exception as exc:  # shutting down anyway
            logger.info("warm runners: %s", exc)
