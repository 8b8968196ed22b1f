"""A shared cause in the editor: the weak fix of the cause groups the other failure, and healing
either diagnostic of the group offers that one candidate; the innocent caller is never edited."""

from pathlib import Path

import pytest
from helpers.fakemodel import fake_model, pick_function_answer  # noqa: F401 - the fixture
from helpers.lsp import NO_TRIAGE
from helpers.projects import FIXED_SUBTOTAL, INNOCENT_TOTAL, write_shared_cause
from pygls.uris import to_fs_path

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]


@pytest.fixture
def settings(fake_model):  # noqa: F811
    return {"provider": "openai", "baseUrl": fake_model.openai_url, "model": "fake", **NO_TRIAGE}


async def test_either_failure_of_a_weak_shared_cause_offers_the_causes_fix(
    vscode_client,
    fake_model,  # noqa: F811
):
    editor = vscode_client.editor
    write_shared_cause(editor.root, fresh=False, guarded=False)
    before = (editor.root / "orders.py").read_text()
    fake_model.functions.update({"subtotal": FIXED_SUBTOTAL, "total": INNOCENT_TOTAL})
    result = await editor.command("heal.runTests")
    assert result["failed"] >= 2, result
    editor.answer = lambda params: "Discard"
    diffs = []
    for test in ("test_total_with_tax", "test_subtotal"):  # the innocent caller's failure first
        nodeid = f"tests/test_orders.py::{test}"
        result = await editor.command("heal.healFailingTest", {"test": nodeid}, timeout=180)
        assert result["status"] == "weak" and result["qualname"] == "Order.subtotal", result
        assert result["applied"] is False, result
        shown = vscode_client.shown_documents[-1].uri
        diffs.append(Path(to_fs_path(shown)).read_text(encoding="utf-8"))
    assert diffs[0] == diffs[1] and "+        return sum(self.prices)\n" in diffs[0]
    asked = [pick_function_answer(r.prompt_text, fake_model.functions) for r in fake_model.requests]
    assert asked and set(asked) == {FIXED_SUBTOTAL}  # total is never asked for
    assert "test_total_with_tax" in editor.questions[0].message  # the group is named
    assert editor.applied == [] and (editor.root / "orders.py").read_text() == before
