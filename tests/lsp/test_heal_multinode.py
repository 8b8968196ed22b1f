"""A fix that touches two functions reaches the editor as one version-pinned TextDocumentEdit
with one TextEdit per node, and the touched nodes are named in the label and the message."""

import shutil
from pathlib import Path

import pytest
from helpers.fakemodel import fake_model  # noqa: F401 - the fixture
from helpers.lsp import failing

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

PROJECT = Path(__file__).parents[1] / "e2e" / "multinode" / "two_functions"


@pytest.fixture
def workspace(tmp_path) -> Path:
    root = tmp_path / "two_functions"
    shutil.copytree(PROJECT, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture
def settings(fake_model):  # noqa: F811
    return {"provider": "openai", "baseUrl": fake_model.openai_url, "maxAttempts": 1}


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
