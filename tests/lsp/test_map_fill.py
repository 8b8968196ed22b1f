"""After a run, the editor fills the impact map for the suspects' functions in the background
(work-done progress) and re-publishes the diagnostics ranked with what it learned."""

import pytest
from helpers.lsp import eventually
from helpers.projects import write_files

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

FILES = {
    "pytest.ini": "[pytest]\n",
    "shop/__init__.py": "",
    "shop/filters.py": """
        def parse(text):
            return [clause(c) for c in text.split(",") if c]


        def clause(c):
            return c.upper()
    """,
    "tests/test_filters.py": """
        import time

        from shop.filters import parse


        def test_parse():
            assert parse("a,b") == ["a", "b"]


        def test_parse_nothing():
            time.sleep(2)  # only the fill runs it: its re-ranking comes after the first look
            assert parse("") == []
    """,
}
CLAUSE_DEF = 4  # 0-based line of `def clause`


@pytest.fixture
def project() -> str:
    return "filters"


@pytest.fixture
def settings() -> dict:
    # "Re-run test" first re-checks a failing test for flakiness (up to 14 runs): on a loaded
    # machine the fill could finish inside them, and the first look would already be re-ranked
    return {"provider": "local", "flakyRuns": 0}


def fill_progress(client) -> list:
    return [
        r for r in client.progress_reports.values() if r and r[0].title.startswith("heal: learn")
    ]


async def test_a_run_of_one_test_is_re_ranked_once_the_fill_knows_its_file_mates(vscode_client):
    editor = vscode_client.editor
    write_files(editor.root, FILES)
    result = await editor.command("heal.runTests", {"test": "tests/test_filters.py::test_parse"})
    assert (result["failed"], result["passed"]) == (1, 0), result
    [first] = editor.diagnostics("shop/filters.py")
    assert first.range.start.line < CLAUSE_DEF  # alone, the test's own call leads: parse
    moved = await eventually(
        lambda: [d for d in editor.diagnostics("shop/filters.py") if d.range.start.line >= 4],
        timeout=60,
        what="the diagnostic re-ranked to clause",
    )
    assert "test_parse" in moved[0].message
    [report] = await eventually(lambda: fill_progress(vscode_client), what="the fill's progress")
    await eventually(lambda: report[-1].kind == "end", what="the fill's end")
    assert report[0].kind == "begin" and report[0].cancellable is True
    assert any("re-ranking" in (r.message or "") for r in report[1:-1]), report
