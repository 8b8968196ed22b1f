"""A project whose tests are `checks/*check.py` (its own python_files): the editor runs a
check file's own tests as it runs a test_*.py file's, on save and on "run this file's tests"
(lsp/runs/test_files.py), never the whole suite or nothing (issue 22)."""

import pytest
from helpers.lsp import eventually
from helpers.projects import write_files

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

CHECKED = {
    "pytest.ini": "[pytest]\npython_files = *check.py\ntestpaths = checks\n",
    "shop.py": "def total(items):\n    return sum(items) - 1\n",
    "checks/__init__.py": "",
    # a TestCase not named Test*: pytest collects it; no top-level `def test` says so
    "checks/basecheck.py": """
        import unittest

        from shop import total


        class BaseCheck(unittest.TestCase):
            def test_empty(self):
                self.assertEqual(total([]) + 1, 0)
        """,
    "checks/pricecheck.py": """
        from shop import total


        def test_total():
            assert total([1, 2]) == 3
        """,
}


@pytest.fixture
def project() -> str:
    return "checked"


def reruns(client) -> list:
    return [
        r for r in client.progress_reports.values() if r and r[0].title == "heal: re-running tests"
    ]


async def test_saving_a_check_file_runs_its_tests(vscode_client, workspace):
    # nothing run yet: a test_*.py file's save runs its tests, and so must a *check.py file's
    # (it ran nothing: the name rule did not know it)
    write_files(workspace, CHECKED)
    editor = vscode_client.editor
    uri = editor.open("checks/pricecheck.py")
    editor.save(uri)
    await eventually(lambda: reruns(vscode_client), what="the saved check file's tests to run")
    await eventually(lambda: editor.diagnostics("shop.py"), timeout=60, what="its failure")
    failures = await vscode_client.protocol.send_request_async("heal/failures", {})
    assert [f.test for f in failures.failures] == ["checks/pricecheck.py::test_total"]


async def test_running_a_check_file_runs_that_file_only(vscode_client, workspace):
    # "run this file's tests" on a check file ran the whole suite when nothing was known
    write_files(workspace, CHECKED)
    editor = vscode_client.editor
    scoped = await editor.command("heal.runTests", {"uri": editor.uri("checks/pricecheck.py")})
    assert (scoped["failed"], scoped["passed"]) == (1, 0)


async def test_a_new_test_of_a_known_check_file_runs_with_its_file(vscode_client, workspace):
    # after a full run the editor knows basecheck.py holds tests (no name or top-level def
    # says so): a test written since runs with it, as a test_*.py file's new test does
    write_files(workspace, CHECKED)
    editor = vscode_client.editor
    whole = await editor.command("heal.runTests")
    assert (whole["failed"], whole["passed"]) == (1, 1)
    base = workspace / "checks" / "basecheck.py"
    base.write_text(
        base.read_text(encoding="utf-8")
        + "\n    def test_one(self):\n        self.assertEqual(total([5]), 4)\n",
        encoding="utf-8",
    )
    scoped = await editor.command("heal.runTests", {"uri": editor.uri("checks/basecheck.py")})
    assert (scoped["failed"], scoped["passed"]) == (0, 2)
