"""Bad input gets an error response or a message, and the server keeps serving."""

import socket
import subprocess

import pytest
from helpers.lsp import NO_TRIAGE
from lsprotocol import types as t

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

MODULE = "shop/inventory.py"
NODEID = "tests/test_inventory.py::test_remove_all"


def python_without_pytest() -> str | None:
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        try:
            probe = subprocess.run(
                [candidate, "-c", "import pytest"], capture_output=True, timeout=20
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if probe.returncode != 0:
            return candidate
    return None


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def still_serving(client) -> None:
    assert (await client.protocol.send_request_async("heal/failures", {})) is not None


NO_PYTEST = python_without_pytest()


@pytest.mark.skipif(NO_PYTEST is None, reason="every python here has pytest")
@pytest.mark.parametrize("settings", [{"provider": "local", "python": NO_PYTEST}])
async def test_missing_pytest_is_a_message(vscode_client, settings):
    result = await vscode_client.editor.command("heal.runTests")
    assert result["ran"] is False and result["error"]
    assert any("could not run" in m.message for m in vscode_client.messages)
    await still_serving(vscode_client)


@pytest.mark.parametrize(
    "settings",
    [
        {
            "provider": "openai",
            "baseUrl": f"http://127.0.0.1:{closed_port()}/v1",
            "maxAttempts": 1,
            **NO_TRIAGE,
        }
    ],
)
async def test_dead_model_endpoint_fails_the_heal_with_a_reason(vscode_client, settings):
    editor = vscode_client.editor
    await editor.command("heal.runTests")
    result = await editor.command("heal.healFunction", {"failure": NODEID}, timeout=120)
    assert result["status"] in ("failed", "unverified") and result["applied"] is False, result
    assert result["message"]
    await still_serving(vscode_client)


async def test_syntax_errors_unknown_documents_and_bad_arguments(vscode_client):
    editor = vscode_client.editor
    uri = editor.open(MODULE)
    await editor.command("heal.runTests")
    editor.type_text(uri, editor.text(uri).replace("def remove(self", "def remove(self,,"))
    params = t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=uri),
        range=t.Range(t.Position(12, 0), t.Position(12, 0)),
        context=t.CodeActionContext(diagnostics=[]),
    )
    actions = await vscode_client.text_document_code_action_async(params)
    assert [a.title for a in actions][0].startswith("AI heal Inventory.remove")  # run's lines
    for target in ({"failure": NODEID}, {"uri": uri, "qualname": "Inventory.remove"}):
        result = await editor.command("heal.healFunction", target)
        assert result["status"] == "failed" and "cannot heal now" in result["message"]

    params.text_document = t.TextDocumentIdentifier(uri=editor.uri("nowhere.py"))
    assert not await vscode_client.text_document_code_action_async(params)
    with pytest.raises(Exception, match="test must be a pytest node id, got 3"):
        await editor.command("heal.debugTest", {"test": 3, "extra": True})
    with pytest.raises(Exception, match="no known failure"):
        await editor.command("heal.healFunction", {"uri": uri, "qualname": "Inventory.add"})
    with pytest.raises(Exception, match="must be a file uri"):
        await editor.command("heal.runTests", {"uri": 42})
    await still_serving(vscode_client)


@pytest.mark.parametrize("settings", [{"provider": "anthropic", "maxAttempts": 1, **NO_TRIAGE}])
async def test_a_provider_without_a_key_fails_the_heal_in_one_line(vscode_client, settings):
    editor = vscode_client.editor
    await editor.command("heal.runTests")
    result = await editor.command("heal.healFunction", {"failure": NODEID}, timeout=120)
    assert result["status"] == "failed" and result["applied"] is False, result
    assert "\n" not in result["message"] and "Traceback" not in result["message"]
    assert any(
        "ANTHROPIC" in m.message or "key" in m.message.lower() for m in vscode_client.messages
    )
    await still_serving(vscode_client)
