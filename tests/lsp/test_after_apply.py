"""After an apply in the editor, every guard of the function runs in the background, those the
verification budget (heal.verifySeconds) cut included: one the fix broke gets its diagnostic back
and the user is told."""

import pytest
from helpers.fakemodel import fake_model  # noqa: F401 - the fixture
from helpers.lsp import eventually, model_settings
from helpers.projects import CALC, write_files
from lsprotocol import types as t

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

FIXED = "def total(items):\n    return sum(items)\n"
FILES = {
    **CALC,
    "tests/test_calc.py": """
        from shop.calc import total


        def test_total():
            assert total([1, 2]) == 3


        def test_total_of_nothing_is_small():
            assert total([]) <= 0
    """,
    # far from the failing test and slow, so the budget cuts it; it pins the bug
    "tests/test_report.py": """
        import time

        from shop.calc import total


        def test_report_total():
            time.sleep(0.3)
            assert total([5]) == 4
    """,
}


@pytest.fixture
def project() -> str:
    return "calc"


@pytest.fixture
def settings(fake_model):  # noqa: F811
    return model_settings(fake_model, maxAttempts=1, verifySeconds=0.1)


async def test_a_guard_the_budget_cut_breaks_after_the_apply_and_its_diagnostic_reopens(
    vscode_client,
    fake_model,  # noqa: F811
):
    editor = vscode_client.editor
    write_files(editor.root, FILES)
    fake_model.functions["total"] = FIXED
    uri = editor.open("shop/calc.py")
    assert (await editor.command("heal.runTests"))["failed"] == 1
    result = await editor.command(
        "heal.healFailingTest", {"test": "tests/test_calc.py::test_total"}, timeout=180
    )
    assert result["status"] == "verified" and result["applied"], result
    assert "1 of 2 guards ran (1 cut by the 0.1 s budget run after the apply)" in result["message"]
    assert "return sum(items)\n" in editor.text(uri)
    told = await eventually(
        lambda: [m for m in vscode_client.messages if "broke 1 test(s)" in m.message],
        timeout=60,
        what="the broken guard told",
    )
    assert "tests/test_report.py::test_report_total" in told[0].message
    assert told[0].type == t.MessageType.Warning
    reopened = [d for d in editor.diagnostics("shop/calc.py") if "test_report_total" in d.message]
    assert reopened, editor.diagnostics("shop/calc.py")
    assert not [d for d in editor.diagnostics("shop/calc.py") if "::test_total " in d.message]
