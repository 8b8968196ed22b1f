"""A hostile or confused client through pytest-lsp: options smuggled in as test ids, document
versions going backwards, notifications about documents that were never opened."""

from __future__ import annotations

import pytest
from helpers.lsp import NO_TRIAGE
from lsprotocol import types as t
from pygls.exceptions import JsonRpcInvalidParams

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

MODULE = "shop/inventory.py"
NODEID = "tests/test_inventory.py::test_remove_all"


async def still_serving(client) -> None:
    assert (await client.protocol.send_request_async("heal/failures", {})) is not None


def popups(client) -> list[str]:
    return [m.message for m in client.messages if m.type == t.MessageType.Error]


# The refused requests and ignored notifications below change nothing in the server: one
# server serves them all.
SHARED = pytest.mark.asyncio(loop_scope="module")


@SHARED
@pytest.mark.parametrize(
    "test_id",
    ["--junitxml={out}", "-p{out}", "../outside/test_x.py::test_y", "{out}::test_y", ""],
)
async def test_only_node_ids_inside_the_workspace_are_accepted(shared_client, test_id, tmp_path):
    out = tmp_path / "written-by-pytest.xml"
    test_id = test_id.format(out=out)
    editor = shared_client.editor
    for command in ("heal.runTests", "heal.debugTest"):
        with pytest.raises(Exception, match="test id|outside the workspace|pass"):
            await editor.command(command, {"test": test_id})
    assert not out.exists()
    await still_serving(shared_client)


@SHARED
@pytest.mark.parametrize(
    ("command", "argument", "message"),
    [
        ("heal.runTests", {"test": None}, "test must be a pytest node id, got None"),
        ("heal.runTests", ["tests/test_inventory.py"], "expected an object argument"),
        ("heal.runScript", {"script": 5}, "script must be a script path or a file uri, got 5"),
        ("heal.healFunction", {"failure": 1}, "failure must be a failure id, got 1"),
        ("heal.healFunction", {"qualname": "remove"}, "uri must be a file uri, got None"),
    ],
)
async def test_badly_typed_arguments_get_an_invalid_params_error(
    shared_client, command, argument, message
):
    with pytest.raises(JsonRpcInvalidParams, match=message):
        await shared_client.editor.command(command, argument)
    await still_serving(shared_client)


async def test_a_change_older_than_the_document_is_ignored(vscode_client):
    editor = vscode_client.editor
    uri = editor.open(MODULE)
    good = editor.text(uri)

    def change(version: int, text: str) -> None:
        vscode_client.text_document_did_change(
            t.DidChangeTextDocumentParams(
                text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[t.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    change(5, good)
    change(3, good.replace("def remove(self", "def remove(self,,"))  # stale, and broken
    editor.docs[uri].version = 5
    await editor.command("heal.runTests")
    result = await editor.command("heal.healFunction", {"failure": NODEID}, timeout=120)
    assert result["status"] == "verified", result  # the server kept v5, not the broken v3
    assert editor.applied and editor.refused == []
    pinned = editor.applied[0].edit.document_changes[0].text_document.version
    assert pinned == 5


@SHARED
async def test_notifications_for_unopened_documents_are_ignored(shared_client):
    uri = shared_client.editor.uri("shop/never_opened.py")
    odd = t.Range(t.Position(1000, 5), t.Position(2, 0))
    shared_client.text_document_did_change(
        t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[t.TextDocumentContentChangePartial(range=odd, text="x")],
        )
    )
    ident = t.TextDocumentIdentifier(uri=uri)
    shared_client.text_document_did_save(t.DidSaveTextDocumentParams(text_document=ident))
    shared_client.text_document_did_close(t.DidCloseTextDocumentParams(text_document=ident))
    opened = shared_client.editor.open(MODULE)
    shared_client.text_document_did_change(  # an open document, a change that cannot apply
        t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=opened, version=2),
            content_changes=[t.TextDocumentContentChangePartial(range=odd, text="x")],
        )
    )
    await still_serving(shared_client)
    assert popups(shared_client) == []


INTERRUPTING = "def remove(self, name, count=1):\n    raise KeyboardInterrupt\n"


@pytest.mark.parametrize(
    "settings", [{"provider": "openai", "model": "fake", "maxAttempts": 1, **NO_TRIAGE}]
)
async def test_a_candidate_that_interrupts_the_run_is_not_applied(vscode_client, settings):
    from helpers.fakemodel import FakeModelServer

    editor = vscode_client.editor
    uri = editor.open(MODULE)
    before = editor.text(uri)
    await editor.command("heal.runTests")
    with FakeModelServer() as server:
        server.push(INTERRUPTING)
        config = {"heal": {**settings, "baseUrl": server.openai_url}}
        vscode_client.set_configuration(config)
        vscode_client.workspace_did_change_configuration(
            t.DidChangeConfigurationParams(settings=config)
        )
        result = await editor.command("heal.healFunction", {"failure": NODEID}, timeout=120)
    assert result["status"] != "verified" and result["applied"] is False, result
    assert editor.applied == [] and editor.text(uri) == before
