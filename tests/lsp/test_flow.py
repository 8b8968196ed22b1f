"""The whole flow through the real server: run tests -> diagnostic -> code action -> heal ->
applyEdit pinned to a version -> the background re-run clears the diagnostic."""

import pytest
from helpers.fakemodel import fake_model  # noqa: F401 - the fixture
from helpers.lsp import NO_TRIAGE, eventually
from helpers.projects import FIXED_REMOVE as FIXED
from lsprotocol import types as t

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

MODULE = "shop/inventory.py"
TEST_FILE = "tests/test_inventory.py"
NODEID = "tests/test_inventory.py::test_remove_all"


@pytest.fixture
def settings(fake_model):  # noqa: F811
    fake_model.push(FIXED)
    return {"provider": "openai", "baseUrl": fake_model.openai_url, "model": "fake", **NO_TRIAGE}


async def run_all(editor):
    result = await editor.command("heal.runTests")
    assert result["ran"] is True and result["failed"] == 1, result
    return result


def code_actions(client, uri, line, diagnostics=()):
    params = t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=uri),
        range=t.Range(t.Position(line, 0), t.Position(line, 0)),
        context=t.CodeActionContext(diagnostics=list(diagnostics)),
    )
    return client.text_document_code_action_async(params)


async def test_run_shows_the_failure_on_the_failing_line_of_the_suspect(client):
    editor = client.editor
    await run_all(editor)
    [error] = editor.diagnostics(MODULE)
    assert error.severity == t.DiagnosticSeverity.Error
    assert (error.source, error.code) == ("heal", "KeyError")
    assert error.message == "test_remove_all failed: KeyError: 'pear'"
    assert error.range.start.line == 12  # `have = self.items[name]`, 0-based
    assert error.range.start.character == 8
    related = {(r.location.uri, r.location.range.start.line) for r in error.related_information}
    assert (editor.uri(MODULE), 12) in related
    assert any(uri == editor.uri(TEST_FILE) for uri, _ in related)
    assert error.data["healable"] is True
    assert error.data["suspect"]["qualname"] == "Inventory.remove"
    [hint] = editor.diagnostics(TEST_FILE)
    assert hint.severity == t.DiagnosticSeverity.Hint
    assert hint.range.start.line == 30  # the second inv.remove("pear")

    failures = await client.protocol.send_request_async("heal/failures", {})
    [failure] = failures.failures
    assert failure.test == NODEID and failure.suspect.line == 11


async def test_code_actions_on_the_def_even_without_a_diagnostic(client):
    editor = client.editor
    uri = editor.open(MODULE)
    await run_all(editor)
    actions = await code_actions(client, uri, line=10)  # the `def remove` line, no diagnostic
    titles = [a.title for a in actions]
    # the heal action carries the blast radius: 4 static call sites, 2 passing tests ran it
    heal = "AI heal Inventory.remove \N{EM DASH} 4 call sites, 2 guard tests"
    assert titles == [heal, "Debug failing test", "Re-run test"]
    assert all(a.kind == t.CodeActionKind.QuickFix for a in actions)
    assert not await code_actions(client, uri, line=4)  # __init__: nothing failing there
    failures = await client.protocol.send_request_async("heal/failures", {})
    assert failures.failures[0].healable is True
    arguments = [list(a.command.arguments) for a in actions]  # each argument object on the wire
    assert arguments == [[{"failure": failures.failures[0].id}], [{"test": NODEID}]] + [
        [{"test": NODEID}]
    ]


async def test_heal_applies_a_versioned_edit_and_the_rerun_clears_the_diagnostic(client):
    editor = client.editor
    uri = editor.open(MODULE)
    await run_all(editor)
    [error] = editor.diagnostics(MODULE)
    actions = await code_actions(client, uri, error.range.start.line, [error])
    heal = next(a for a in actions if a.title.startswith("AI heal"))
    assert heal.diagnostics and heal.diagnostics[0].code == "KeyError"

    result = await editor.command(heal.command.command, *heal.command.arguments, timeout=120)
    assert result["status"] == "verified", result
    [applied] = editor.applied
    [change] = applied.edit.document_changes
    assert change.text_document.version == 1  # pinned to the version it was computed from
    [edit] = change.edits
    assert edit.range.start.line <= 16 <= edit.range.end.line  # only the function's lines
    assert "if self.items[name] <= 0:" in editor.text(uri)
    with open(editor.root / MODULE, encoding="utf-8") as disk:
        assert "<= 1" in disk.read()  # into the buffer, not the disk

    await eventually(lambda: editor.diagnostics(MODULE) == [], what="diagnostic cleared")
    assert editor.diagnostics(TEST_FILE) == []
    reports = [r for r in client.progress_reports.values() if r and r[0].title.startswith("heal:")]
    assert any(r[0].title == "heal: Inventory.remove" and r[-1].kind == "end" for r in reports)
