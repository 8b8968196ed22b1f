"""A class heal in the editor (heal/member.py): a class lacks the member its test uses; the code
action "AI heal class OUI: add __hash__" runs the heal against the fake model (real openai SDK),
the workspace edit inserts that member only, and the verdict says what proved it. A hostile
answer (a second member, an existing method rewritten) is refused and the buffer is unchanged."""

import pytest
from helpers.fakemodel import fake_model  # noqa: F401 - the fixture
from helpers.lsp import eventually, model_settings
from helpers.projects import OUI, OUI_HASH, OUI_REWRITES_EQ, OUI_SECOND_MEMBER, OUI_TESTS
from helpers.projects import write_files as write
from lsprotocol import types as t

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

MODULE = "oui.py"
ADDED = "\n    def __hash__(self):\n        return hash(self.value)\n"
AT = OUI.index("self.value == other.value\n") + len("self.value == other.value\n")


@pytest.fixture
def project() -> str:
    return "oui"


@pytest.fixture
def settings(fake_model):  # noqa: F811
    return model_settings(fake_model, maxAttempts=1)


async def class_heal_action(client, workspace) -> tuple[str, t.CodeAction]:
    """The project written, its tests run, and the heal action on the class's diagnostic."""
    write(workspace, {"pytest.ini": "[pytest]\ntestpaths = tests\n", "conftest.py": ""})
    (workspace / MODULE).write_text(OUI, encoding="utf-8")
    (workspace / "tests").mkdir()
    (workspace / "tests" / "test_oui.py").write_text(OUI_TESTS, encoding="utf-8")
    editor = client.editor
    uri = editor.open(MODULE)
    result = await editor.command("heal.runTests")
    assert (result["failed"], result["passed"]) == (1, 1), result
    [error] = editor.diagnostics(MODULE)
    params = t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=uri),
        range=error.range,
        context=t.CodeActionContext(diagnostics=[error]),
    )
    actions = await client.text_document_code_action_async(params)
    [heal] = [a for a in actions if a.title.startswith("AI heal")]
    return uri, heal


async def test_the_class_heal_inserts_the_one_member_and_says_what_proved_it(
    vscode_client,
    fake_model,  # noqa: F811
    workspace,
):
    editor = vscode_client.editor
    uri, heal = await class_heal_action(vscode_client, workspace)
    assert heal.title.startswith("AI heal class OUI: add __hash__"), heal.title
    fake_model.push(OUI_HASH)
    result = await editor.command(heal.command.command, *heal.command.arguments, timeout=180)
    assert result["status"] == "verified" and result["applied"] is True, result
    assert "lacks the member `__hash__`" in fake_model.requests[0].prompt_text
    # the workspace edit: pinned to the buffer's version, and all it does is insert the member
    [applied] = editor.applied
    [change] = applied.edit.document_changes
    assert change.text_document.version == 1
    assert editor.text(uri) == OUI[:AT] + ADDED + OUI[AT:]
    [edit] = change.edits  # one insertion: no byte of the class or the module rewritten
    inserted_at = t.Position(line=OUI[:AT].count("\n"), character=0)
    assert (edit.range.start, edit.range.end, edit.new_text) == (inserted_at, inserted_at, ADDED)
    assert (workspace / MODULE).read_text(encoding="utf-8") == OUI  # the buffer, not the disk
    # what proved it: the failing test now passing and the guard that ran a method of OUI
    proof = "verified by 1 failing test now passing and 1 guard that runs a method of OUI"
    assert proof in result["message"], result
    assert any(proof in m.message for m in vscode_client.messages)
    await eventually(lambda: editor.diagnostics(MODULE) == [], what="the diagnostic cleared")


@pytest.mark.parametrize(
    "answer, words",
    [(OUI_SECOND_MEMBER, "adds `OUI.__ne__`"), (OUI_REWRITES_EQ, "changes `OUI.__eq__`")],
)
async def test_a_hostile_class_answer_is_refused_and_the_file_unchanged(
    vscode_client,
    fake_model,  # noqa: F811
    workspace,
    answer,
    words,
):
    editor = vscode_client.editor
    uri, heal = await class_heal_action(vscode_client, workspace)
    fake_model.push(answer)
    editor.answer = lambda params: "Apply weak fix"  # even a yes, if asked, would apply nothing
    result = await editor.command(heal.command.command, *heal.command.arguments, timeout=180)
    assert result["status"] == "failed" and result["applied"] is False, result
    assert editor.applied == [] and editor.questions == []
    assert editor.text(uri) == OUI and (workspace / MODULE).read_text(encoding="utf-8") == OUI
    # the editor says why: the answer's refusal, in the message and the heal's progress
    assert f"(openai); refused: the answer {words}" in result["message"], result
    assert any(words in m.message for m in vscode_client.messages)
    [heal_progress] = [
        r for r in vscode_client.progress_reports.values() if r[0].title == "heal: OUI"
    ]
    assert any(words in (r.message or "") for r in heal_progress)
