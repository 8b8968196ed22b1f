"""initialized / shutdown: pull the settings, optionally run the tests, stop our children."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from heal_ls.lsp import status
from heal_ls.lsp.config import pull_configuration
from heal_ls.lsp.log import guarded, logger, spawn


def register(server) -> None:
    @server.feature(types.INITIALIZED)
    @guarded
    async def on_initialized(ls, params: types.InitializedParams):
        await pull_configuration(ls)
        status.notify(ls)
        if ls.settings.runOnStartup:
            logger.info("runOnStartup: running the tests")
            # its own task, not the background slot: a save must not cancel the full run
            ls.startup_run = spawn(ls.runs.tests(None), "startup run")
        else:
            ls.prewarm = spawn(ls.runs.prewarm(), "warm runner start")

    @server.feature(types.SHUTDOWN)
    @guarded
    async def on_shutdown(ls, params=None):
        started = (getattr(ls, "startup_run", None), getattr(ls, "prewarm", None))
        for task in (ls.heal_task, ls.runs.background, *started):
            if task is not None and not task.done():
                task.cancel()
        for process in getattr(ls, "debug_processes", []):
            if process.returncode is None:
                process.kill()
        try:
            from heal_ls.testing.warm import shutdown_all

            await asyncio.wait_for(shutdown_all(), 5.0)
        except Exception as exc:  # shutting down anyway
            logger.info("warm runners: %s", exc)
