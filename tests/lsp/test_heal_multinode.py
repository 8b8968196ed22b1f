"""A fix that touches two functions reaches the editor as one version-pinned TextDocumentEdit
with one TextEdit per node, and the touched nodes are named in the label and the message; a
buffer changed during the heal gets the fix re-planned (touched nodes unchanged) or refused; a
failed two-function candidate is offered as a diff."""

import shutil
from pathlib import Path

import pytest
from helpers.fakemodel import fake_model  # noqa: F401 - the fixture
from helpers.lsp import NO_TRIAGE, eventually, failing
from pygls.uris import to_fs_path

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

PROJECT = Path(__file__).parents[1] / "e2e" / "multinode" / "two_functions"


@pytest.fixture
def workspace(tmp_path) -> Path:
    root = tmp_path / "two_functions"
    shutil.copytree(PROJECT, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture
def settings(fake_model):  # noqa: F811
    return {"provider": "openai", "baseUrl": fake_model.openai_url, "maxAttempts": 1, **NO_TRIAGE}


async def test_two_function_fix_is_one_text_edit_per_node(vscode_client, fake_model):  # noqa: F811
    editor = vscode_client.editor
    uri = editor.open("prices.py")
    await failing(editor)
    fake_model.push((PROJECT / "answer.md").read_text())
    result = await editor.command("heal.healFailingTest", timeout=180)
    assert result["status"] == "verified", result
    assert result["touched"] == ["unit_price", "total"]
    assert "touched: unit_price, total" in result["message"]
    assert "1 guard that runs unit_price(), total()" in result["message"]
    [params] = editor.applied
    [change] = params.edit.document_changes
    assert change.text_document.version == 1
    assert len(change.edits) == 2
    assert [e.range.start.line for e in change.edits] == [3, 7]
    assert "unit_price, total" in params.label
    assert editor.text(uri) == (PROJECT / "expected.py").read_text()


async def heal_while_typing(client, fake_model, typing):  # noqa: F811
    """Heal with the project's answer; `typing(text)` is what the user makes of the buffer just
    as the edit arrives (the editor refuses that edit as stale, the server tries again)."""
    editor = client.editor
    uri = editor.open("prices.py")
    await failing(editor)
    fake_model.push((PROJECT / "answer.md").read_text())
    editor.before_apply = lambda e: e.type_text(uri, typing(e.text(uri)))
    result = await editor.command("heal.healFailingTest", timeout=180)
    return result, editor.text(uri)


async def test_a_buffer_changed_outside_the_touched_nodes_gets_the_fix_replanned(
    vscode_client,
    fake_model,  # noqa: F811
):
    def typing(text):
        return text.replace('"""Order totals in euros."""', '"""Order totals in euros."""\n# VAT?')

    result, text = await heal_while_typing(vscode_client, fake_model, typing)
    assert result["status"] == "verified" and result["applied"] is True, result
    assert vscode_client.editor.refused  # the first edit was stale
    [params] = vscode_client.editor.applied
    [change] = params.edit.document_changes
    assert change.text_document.version == 2 and len(change.edits) == 2
    assert [e.range.start.line for e in change.edits] == [4, 8]  # one line lower now
    assert text == typing((PROJECT / "expected.py").read_text())


async def test_a_buffer_whose_touched_node_changed_is_refused(vscode_client, fake_model):  # noqa: F811
    def typing(text):
        return text.replace("def total(items):", "def total(items):  # mine")

    result, text = await heal_while_typing(vscode_client, fake_model, typing)
    assert result["status"] == "refused" and result["applied"] is False, result
    assert "`total` changed while the heal ran" in result["message"]
    assert vscode_client.editor.applied == []
    assert text == typing((PROJECT / "prices.py").read_text())  # only what the user typed


WRONG = """```python
def unit_price(item):
    return item["cents"] / 100


def total(items):
    return sum(unit_price(item) + item["qty"] for item in items)
```
"""


async def test_a_failed_two_function_candidate_is_offered_as_a_diff(vscode_client, fake_model):  # noqa: F811
    editor = vscode_client.editor
    uri = editor.open("prices.py")
    await failing(editor)
    fake_model.push(WRONG)
    editor.answer = lambda params: params.actions[0].title
    result = await editor.command("heal.healFailingTest", timeout=180)
    assert result["status"] == "unverified" and result["applied"] is False, result
    assert editor.applied == [] and editor.text(uri) == (PROJECT / "prices.py").read_text()
    await eventually(lambda: vscode_client.shown_documents, what="the diff shown")
    [question] = editor.questions
    assert "no verified fix for" in question.message
    diff = Path(to_fs_path(vscode_client.shown_documents[0].uri)).read_text(encoding="utf-8")
    assert '-    return item["cents"] / 10\n+    return item["cents"] / 100\n' in diff
    assert '+    return sum(unit_price(item) + item["qty"] for item in items)\n' in diff
