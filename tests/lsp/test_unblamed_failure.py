"""A failure no workspace function is blamed for (a unittest assertTrue fails in unittest's
case.py) is an Error on the failing test's line, not on a file of the stdlib."""

import pytest
from helpers.cli import write
from lsprotocol import types as t

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

TEST_X = """\
import json
import unittest


class TestX(unittest.TestCase):
    def test_loads(self):
        self.assertTrue(json.loads("null"))
"""


@pytest.mark.parametrize("project", ["unblamed"])
async def test_an_unblamed_failure_is_an_error_on_the_test_line(vscode_client, project):
    editor = vscode_client.editor
    write(editor.root, {"pyproject.toml": "", "tests/test_x.py": TEST_X})
    assert (await editor.command("heal.runTests", {}))["failed"] == 1
    [error] = editor.diagnostics("tests/test_x.py")
    assert (error.range.start.line, error.severity) == (6, t.DiagnosticSeverity.Error)
    assert error.message.startswith("test_loads failed: AssertionError: None is not true")
