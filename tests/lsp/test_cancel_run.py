"""Cancelling a run's progress stops the test process (the hang example never finishes alone)."""

import asyncio
import time

import pytest
from helpers.lsp import eventually
from lsprotocol import types as t

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]


@pytest.mark.parametrize("project", ["hang"])
@pytest.mark.parametrize("settings", [{"provider": "local", "testTimeout": 120}])
async def test_cancelling_a_run_stops_it(vscode_client, project, settings):
    editor = vscode_client.editor
    started = time.monotonic()
    run = asyncio.ensure_future(editor.command("heal.runTests", timeout=100))

    def run_progress():
        return [
            k for k, v in vscode_client.progress_reports.items() if v and "running" in v[0].title
        ]

    [token] = await eventually(run_progress, what="the run's progress")
    await asyncio.sleep(1.0)  # let pytest get going
    vscode_client.window_work_done_progress_cancel(t.WorkDoneProgressCancelParams(token=token))
    assert await asyncio.wait_for(run, 30) == {"ran": False}
    assert time.monotonic() - started < 60  # far less than the 120 s per-test timeout
    await eventually(lambda: vscode_client.progress_reports[token][-1].kind == "end", what="end")
    assert vscode_client.progress_reports[token][-1].message == "cancelled"
    assert editor.statuses[-1].running is False
    assert any(m.message == "heal: run cancelled" for m in vscode_client.messages)
    # the server still runs tests afterwards
    assert (await editor.command("heal.runTests", {"test": "tests/test_search.py::test_empty"}))[
        "passed"
    ] == 1


@pytest.mark.parametrize("project", ["hang"])
@pytest.mark.parametrize("settings", [{"provider": "local", "testTimeout": 120}])
async def test_a_cancel_request_stops_the_run_too(vscode_client, project, settings):
    params = t.ExecuteCommandParams(command="heal.runTests", arguments=[])
    request = asyncio.ensure_future(
        vscode_client.protocol.send_request_async(t.WORKSPACE_EXECUTE_COMMAND, params, "run-1")
    )
    [token] = await eventually(
        lambda: [k for k, v in vscode_client.progress_reports.items() if v], what="progress"
    )
    await asyncio.sleep(1.0)
    vscode_client.protocol.notify(t.CANCEL_REQUEST, t.CancelParams(id="run-1"))
    with pytest.raises(Exception, match="cancel"):
        await asyncio.wait_for(request, 30)
    report = vscode_client.progress_reports[token]
    await eventually(lambda: report[-1].kind == "end", timeout=30, what="the run to stop")
    assert report[-1].message == "cancelled"
