"""didSave: a debounced background re-run; a newer save cancels the older run; can be off."""

import asyncio

import pytest
from helpers.lsp import eventually

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

MODULE = "shop/inventory.py"


def reruns(client) -> list:
    return [
        r for r in client.progress_reports.values() if r and r[0].title == "heal: re-running tests"
    ]


async def test_saving_reruns_and_a_newer_save_cancels_the_older_run(vscode_client):
    editor = vscode_client.editor
    uri = editor.open(MODULE)
    result = await editor.command("heal.runTests")
    assert result["failed"] == 1
    broken = editor.text(uri)
    editor.type_text(uri, broken.replace("have = self.items[name]", "have = self.items[name]  # x"))
    editor.save(uri)
    await eventually(lambda: reruns(vscode_client), what="the first re-run to start")
    editor.type_text(uri, broken.replace("<= 1:", "<= 0:"))
    editor.save(uri)
    await eventually(lambda: editor.diagnostics(MODULE) == [], timeout=90, what="fixed by the save")
    runs = reruns(vscode_client)
    await eventually(lambda: all(r[-1].kind == "end" for r in runs), what="both runs to end")
    assert [r[-1].message for r in runs] == ["cancelled", "done"]
    failures = await vscode_client.protocol.send_request_async("heal/failures", {})
    assert failures.failures == []


@pytest.mark.parametrize("settings", [{"provider": "local", "autoVerifyOnSave": False}])
async def test_auto_verify_on_save_off(vscode_client, settings):
    editor = vscode_client.editor
    uri = editor.open("tests/test_inventory.py")
    editor.save(uri)
    await asyncio.sleep(1.0)
    assert reruns(vscode_client) == []
