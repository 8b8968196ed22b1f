"""heal.debugTest for real: attach to debugpy as a DAP client and stop at the failing line."""

import asyncio
import os

import pytest
from helpers.dap_client import DapClient

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

NODEID = "tests/test_inventory.py::test_remove_all"


def debug_until_stopped(host: str, port: int, filters: list[str]) -> dict:
    dap = DapClient(host, port)
    try:
        dap.request(
            "initialize",
            clientID="heal-ls-test",
            adapterID="debugpy",
            pathFormat="path",
            linesStartAt1=True,
            columnsStartAt1=True,
        )
        attach = dap.send("attach", justMyCode=True)
        dap.event("initialized")
        dap.request("setExceptionBreakpoints", filters=filters)
        dap.request("configurationDone")
        dap.response(attach)
        stopped = dap.event("stopped", timeout=120)
        frames = dap.request("stackTrace", threadId=stopped["body"]["threadId"])["stackFrames"]
        dap.send("disconnect", terminateDebuggee=True)
        return {"reason": stopped["body"]["reason"], "top": frames[0]}
    finally:
        dap.close()


async def test_debug_test_stops_at_the_failing_line_of_the_suspect(vscode_client, workspace):
    where = await vscode_client.editor.command("heal.debugTest", {"test": NODEID})
    assert where["host"] == "127.0.0.1" and where["test"] == NODEID and where["port"] > 0
    stop = await asyncio.to_thread(
        debug_until_stopped, where["host"], where["port"], ["uncaught", "userUnhandled"]
    )
    top = stop["top"]
    assert stop["reason"] == "exception"
    module = os.path.realpath(workspace / "shop" / "inventory.py")
    assert (os.path.realpath(top["source"]["path"]), top["line"]) == (module, 13), top
    assert top["name"] == "remove"
