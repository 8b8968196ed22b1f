"""Blast radius: a function with more callers than heal.previewAboveCallers is always previewed:
VS Code gets an edit annotated needsConfirmation (its refactor preview); a client without
change annotations (Neovim's profile) is asked first ("Show diff" opens the fix as a diff and
asks again), and a "no" applies nothing."""

from pathlib import Path

import pytest
from helpers.lsp import NO_TRIAGE, eventually
from lsprotocol import types as t
from pygls.uris import to_fs_path

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

MODULE = "shop/inventory.py"
NODEID = "tests/test_inventory.py::test_remove_all"


@pytest.fixture
def settings():
    return {
        "provider": "local",
        "previewAboveCallers": 3,
        **NO_TRIAGE,
    }  # Inventory.remove has 4 callers


async def test_a_widely_called_function_is_previewed(client):
    editor = client.editor
    uri = editor.open(MODULE)
    before = editor.text(uri)
    await editor.command("heal.runTests")
    annotations = client.capabilities.workspace.workspace_edit.change_annotation_support
    editor.answer = lambda params: None  # Neovim's question: the user says no first
    if not annotations:
        declined = await editor.command("heal.healFunction", {"failure": NODEID}, timeout=120)
        assert declined["status"] == "refused" and editor.applied == []
        question = editor.questions[-1]
        assert question.message.count("4 call sites, 2 guard tests") == 1, question.message
        assert [a.title for a in question.actions] == ["Apply fix", "Show diff", "Discard"]
        answers = iter(["Show diff", "Apply fix"])  # see the fix first, then apply it
        editor.answer = lambda params: next(answers)
    result = await editor.command("heal.healFunction", {"failure": NODEID}, timeout=120)
    assert result["status"] == "verified", result
    assert "4 call sites, 2 guard tests" in result["message"]
    [params] = editor.applied
    assert params.label.endswith("; 4 call sites, 2 guard tests)")  # what previews show
    if annotations:  # VS Code: the edit itself asks for confirmation (refactor preview)
        [note] = params.edit.change_annotations.values()
        assert note.needs_confirmation is True
        assert note.description.startswith("4 call sites, 2 guard tests")
        assert all(e.annotation_id for e in params.edit.document_changes[0].edits)
    assert editor.text(uri) != before  # the local repairer's fix is in the buffer
    if not annotations:  # the diff shown before the second question is the fix applied
        diff = Path(to_fs_path(client.shown_documents[-1].uri)).read_text(encoding="utf-8")
        assert (
            diff.startswith("--- a/shop/inventory.py")
            and "-        if self.items[name] <= 1:" in diff
        )
        assert [a.title for a in editor.questions[-1].actions] == ["Apply fix", "Discard"]
    await eventually(lambda: editor.diagnostics(MODULE) == [], what="the re-run to clear it")


async def test_the_heal_counts_the_guards_it_discovered(vscode_client):
    """Only the failing test ran: the action knows no guard yet; the heal's guard discovery
    (a traced run of the tests around the function) finds both, and the heal says so."""
    editor = vscode_client.editor
    uri = editor.open(MODULE)
    await editor.command("heal.runTests", {"test": NODEID})
    line = editor.diagnostics(MODULE)[0].range.start.line
    actions = await vscode_client.text_document_code_action_async(
        t.CodeActionParams(
            text_document=t.TextDocumentIdentifier(uri=uri),
            range=t.Range(t.Position(line, 0), t.Position(line, 0)),
            context=t.CodeActionContext(diagnostics=[]),
        )
    )
    assert "AI heal Inventory.remove \N{EM DASH} 4 call sites" in [  # guards: none seen yet
        a.title for a in actions
    ]
    result = await editor.command("heal.healFunction", {"failure": NODEID}, timeout=120)
    assert result["status"] == "verified", result
    assert "4 call sites, 2 guard tests" in result["message"]
    assert editor.applied[0].label.endswith("; 4 call sites, 2 guard tests)")
