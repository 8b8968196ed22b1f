"""heal.healFunction / heal.healFailingTest against the fake model server (real openai SDK):
progress and its cancel, a buffer that changes during the heal, unverified candidates."""

import asyncio
from pathlib import Path

import pytest
from helpers.fakemodel import fake_model  # noqa: F401 - the fixture
from helpers.lsp import NO_TRIAGE, eventually, failing
from helpers.projects import FIXED_REMOVE as FIXED
from helpers.projects import FIXED_SUBTOTAL, write_shared_cause
from lsprotocol import types as t
from pygls.uris import to_fs_path

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

MODULE = "shop/inventory.py"
NODEID = "tests/test_inventory.py::test_remove_all"
WRONG = FIXED.replace("<= 0", "< 0")


@pytest.fixture
def triage() -> dict:
    return NO_TRIAGE


@pytest.fixture
def settings(fake_model, triage):  # noqa: F811
    return {
        "provider": "openai",
        "baseUrl": fake_model.openai_url,
        "model": "fake",
        "maxAttempts": 1,
        "prices": {"fake": {"input": 1.0, "output": 2.0}},  # USD per million tokens
        **triage,
    }


def heal_progress(client) -> list:
    return [r for r in client.progress_reports.values() if r and r[0].title.startswith("heal: I")]


async def start_heal(client):
    editor = client.editor
    task = asyncio.ensure_future(
        editor.command("heal.healFailingTest", {"test": NODEID}, timeout=180)
    )
    await eventually(lambda: heal_progress(client), what="heal progress")
    return task


@pytest.mark.parametrize("triage", [{}])  # the default: re-checked (not flaky), then healed
async def test_heal_failing_test_with_the_model(vscode_client, fake_model, triage):  # noqa: F811
    editor = vscode_client.editor
    uri = editor.open(MODULE)
    await failing(editor)
    fake_model.push(f"Here is the fix:\n```python\n{FIXED}```\n")
    result = await editor.command("heal.healFailingTest", timeout=180)  # no argument: the only one
    assert result["status"] == "verified" and result["qualname"] == "Inventory.remove", result
    assert "if self.items[name] <= 0:" in editor.text(uri)
    assert editor.applied[0].edit.document_changes[0].text_document.version == 1
    [report] = heal_progress(vscode_client)
    assert report[0].cancellable is True and report[-1].kind == "end"
    [recheck] = [
        r
        for r in vscode_client.progress_reports.values()
        if r and r[0].title.startswith("heal: re-checking")
    ]
    assert recheck[-1].kind == "end" and "run 2 of" in recheck[1].message  # not flaky
    assert any("model" in (r.message or "") or "ask" in (r.message or "") for r in report[1:-1])
    assert fake_model.requests and "def remove" in fake_model.requests[0].prompt_text
    await eventually(lambda: editor.diagnostics(MODULE) == [], what="diagnostic cleared")
    # the budget meter: in the progress, the final message and heal/status
    assert any(" out tokens, ~$" in (r.message or "") for r in report[1:-1])
    spent = editor.statuses[-1].lastHeal
    assert spent.tokensIn > 0 and spent.tokensOut > 0 and spent.model == "fake"
    assert spent.cost == pytest.approx((spent.tokensIn + 2 * spent.tokensOut) / 1e6, abs=1e-6)
    assert f"({spent.tokensIn:,} in / {spent.tokensOut:,} out tokens" in result["message"]
    # what proved it, in the progress and in the message
    assert any("2 passing test(s) run remove()" in (r.message or "") for r in report), report
    assert any(
        "verified by 1 failing test now passing and 2 guards that run remove()" in m.message
        for m in vscode_client.messages
    )


async def test_cancelling_the_progress_stops_the_heal(vscode_client, fake_model):  # noqa: F811
    editor = vscode_client.editor
    editor.open(MODULE)
    await failing(editor)
    fake_model.push(FIXED, first_byte_delay=60)
    task = await start_heal(vscode_client)
    [(token, _)] = [
        (k, v)
        for k, v in vscode_client.progress_reports.items()
        if v in heal_progress(vscode_client)
    ]
    vscode_client.window_work_done_progress_cancel(t.WorkDoneProgressCancelParams(token=token))
    result = await asyncio.wait_for(task, 30)
    assert result["status"] == "cancelled"
    assert editor.applied == []
    await eventually(lambda: heal_progress(vscode_client)[0][-1].kind == "end", what="progress end")
    await eventually(lambda: editor.statuses and editor.statuses[-1].healing is None, what="status")


async def test_a_buffer_changed_elsewhere_gets_the_fix_respliced(vscode_client, fake_model):  # noqa: F811
    editor = vscode_client.editor
    uri = editor.open(MODULE)
    await failing(editor)
    fake_model.push(FIXED, first_byte_delay=1.5)
    task = await start_heal(vscode_client)
    editor.type_text(uri, "# edited while healing\n" + editor.text(uri))
    result = await task
    assert result["status"] == "verified", result
    [applied] = editor.applied
    assert applied.edit.document_changes[0].text_document.version == 2
    text = editor.text(uri)
    assert text.startswith("# edited while healing\n") and "<= 0:" in text


async def test_a_function_changed_during_the_heal_is_refused(vscode_client, fake_model):  # noqa: F811
    editor = vscode_client.editor
    uri = editor.open(MODULE)
    await failing(editor)
    fake_model.push(FIXED, first_byte_delay=1.5)
    task = await start_heal(vscode_client)
    edited = editor.text(uri).replace("have = self.items[name]", "have = self.items.get(name)")
    editor.type_text(uri, edited)
    result = await task
    assert (
        result["status"] == "refused" and "changed while it was being healed" in result["message"]
    )
    assert editor.applied == [] and editor.text(uri) == edited
    assert any("refused" in m.message for m in vscode_client.messages)


async def test_unverified_offers_the_best_candidate_as_a_diff(vscode_client, fake_model):  # noqa: F811
    editor = vscode_client.editor
    uri = editor.open(MODULE)
    await failing(editor)
    fake_model.push(WRONG)
    editor.answer = lambda params: params.actions[0].title
    result = await editor.command("heal.healFunction", {"failure": NODEID}, timeout=180)
    assert result["status"] == "unverified" and result["applied"] is False
    assert editor.applied == [] and "<= 1:" in editor.text(uri)
    await eventually(lambda: vscode_client.shown_documents, what="the diff shown")
    [question] = editor.questions
    assert "no verified fix for Inventory.remove" in question.message
    shown = vscode_client.shown_documents[0].uri
    assert shown.endswith(".diff")
    diff = Path(to_fs_path(shown)).read_text(encoding="utf-8")
    assert (
        "-        if self.items[name] <= 1:" in diff and "+        if self.items[name] < 0:" in diff
    )


async def test_heal_failing_test_asks_which_when_several_fail(vscode_client, fake_model):  # noqa: F811
    editor = vscode_client.editor
    (editor.root / "shop" / "prices.py").write_text(
        "def with_tax(amount):\n    return amount * 1.2 + 1\n"
    )
    (editor.root / "tests" / "test_prices.py").write_text(
        "from shop.prices import with_tax\n\n\ndef test_with_tax():\n    assert with_tax(10) == 12\n"
        "\n\ndef test_more_costs_more():\n    assert with_tax(20) > with_tax(10)\n"
    )
    result = await editor.command("heal.runTests")
    assert result["failed"] == 2
    fake_model.push("def with_tax(amount):\n    return amount * 1.2\n")
    editor.answer = lambda params: next(a.title for a in params.actions if "with_tax" in a.title)
    result = await editor.command("heal.healFailingTest", timeout=180)
    assert result["status"] == "verified" and result["qualname"] == "with_tax", result
    [question] = editor.questions
    assert sorted(a.title for a in question.actions) == [
        "Inventory.remove (test_remove_all)",
        "with_tax (test_with_tax)",
    ]
    # the fix went into a document that was not open: the edit carries no version
    [applied] = editor.applied
    assert applied.edit.document_changes[0].text_document.version is None
    assert "return amount * 1.2\n" in editor.text(editor.uri("shop/prices.py"))
    assert "+ 1" in (editor.root / "shop" / "prices.py").read_text()  # the disk is untouched


async def test_rerun_failed_clears_what_was_fixed_on_disk(vscode_client):
    editor = vscode_client.editor
    await failing(editor)
    module = editor.root / MODULE
    module.write_text(module.read_text().replace("<= 1:", "<= 0:"))
    result = await editor.command("heal.rerunFailed")
    assert (result["passed"], result["failed"]) == (1, 0)
    assert editor.diagnostics(MODULE) == []


async def test_an_edit_refused_as_stale_is_redone_on_the_new_text(vscode_client, fake_model):  # noqa: F811
    editor = vscode_client.editor
    uri = editor.open(MODULE)
    await failing(editor)
    fake_model.push(FIXED)
    # the user types just as the edit arrives: the editor refuses it (stale version)
    editor.before_apply = lambda e: e.type_text(uri, e.text(uri) + "\n# typed at the last moment\n")
    result = await editor.command("heal.healFunction", {"failure": NODEID}, timeout=180)
    assert result["status"] == "verified", result
    assert editor.refused == [uri]
    [applied] = editor.applied
    assert applied.edit.document_changes[0].text_document.version == 2
    text = editor.text(uri)
    assert "<= 0:" in text and text.endswith("# typed at the last moment\n")


async def test_a_fix_the_editor_declines_returns_refused_with_its_reason(
    vscode_client,
    fake_model,  # noqa: F811
):
    editor = vscode_client.editor
    uri = editor.open(MODULE)
    await failing(editor)
    fake_model.push(FIXED)
    asked = []

    def decline(params):  # the user discards the refactor preview
        asked.append(params)
        return t.ApplyWorkspaceEditResult(applied=False, failure_reason="discarded in the preview")

    editor.apply_edit = decline
    result = await editor.command("heal.healFunction", {"failure": NODEID}, timeout=60)
    assert result["status"] == "refused" and result["applied"] is False, result
    assert "discarded in the preview" in result["message"]
    assert len(asked) == 1, "a declined fix is not offered again"
    assert "<= 1:" in editor.text(uri)
    assert any("discarded in the preview" in m.message for m in vscode_client.messages)
    # the server keeps serving: the tests still run and the failure is still known
    await failing(editor)


WEAK_MODULE = "shop/prices.py"


async def weak_heal(vscode_client, fake_model, answer):  # noqa: F811
    """A function whose only test fails: any fix is weak (no passing test guards it)."""
    editor = vscode_client.editor
    (editor.root / "shop" / "prices.py").write_text(
        "def with_tax(amount):\n    return amount * 1.2 + 1\n"
    )
    (editor.root / "tests" / "test_prices.py").write_text(
        "from shop.prices import with_tax\n\n\ndef test_with_tax():\n    assert with_tax(10) == 12\n"
    )
    uri = editor.open(WEAK_MODULE)
    await editor.command("heal.runTests")
    fake_model.push("def with_tax(amount):\n    return amount * 1.2\n")
    editor.answer = answer
    test = "tests/test_prices.py::test_with_tax"
    result = await editor.command("heal.healFailingTest", {"test": test}, timeout=180)
    [question] = editor.questions
    assert "no passing test runs with_tax()" in question.message
    assert [a.title for a in question.actions] == ["Apply weak fix", "Discard"]
    shown = vscode_client.shown_documents[0].uri  # the diff, shown before the question
    assert "+    return amount * 1.2\n" in Path(to_fs_path(shown)).read_text(encoding="utf-8")
    return result, editor.text(uri)


async def test_a_weak_fix_is_previewed_and_applied_only_when_accepted(vscode_client, fake_model):  # noqa: F811
    result, text = await weak_heal(vscode_client, fake_model, lambda params: "Apply weak fix")
    assert result["status"] == "weak" and result["applied"] is True, result
    assert "return amount * 1.2\n" in text


async def test_a_declined_weak_fix_changes_nothing(vscode_client, fake_model):  # noqa: F811
    result, text = await weak_heal(vscode_client, fake_model, lambda params: "Discard")
    assert result["status"] == "weak" and result["applied"] is False, result
    assert "+ 1" in text and vscode_client.editor.applied == []


async def test_healing_a_shared_cause_clears_the_other_failure(vscode_client, fake_model):  # noqa: F811
    editor = vscode_client.editor
    write_shared_cause(editor.root, fresh=False)
    result = await editor.command("heal.runTests")
    assert result["failed"] == 3, result
    assert editor.diagnostics("orders.py")
    fake_model.push(FIXED_SUBTOTAL)
    test = "tests/test_orders.py::test_subtotal"
    result = await editor.command("heal.healFailingTest", {"test": test}, timeout=180)
    assert result["status"] == "verified" and result["qualname"] == "Order.subtotal", result
    # test_total_with_tax failed in Order.total; the re-run after the heal clears it too
    await eventually(lambda: editor.diagnostics("orders.py") == [], what="both cleared")
    assert len(fake_model.requests) == 1
