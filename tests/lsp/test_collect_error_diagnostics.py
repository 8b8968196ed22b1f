"""A test module that fails to import (a name its module lacks yet) is an Error on that module
and a Hint on the importing line, for a run of one test id as for a whole run; never a usage
error. It clears when the module gains the name and is saved."""

import pytest
from helpers.cli import write
from helpers.lsp import eventually
from lsprotocol import types as t

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

MISSING_NAME = {
    "pytest.ini": "[pytest]\npythonpath = .\n",
    "pkg/__init__.py": "",
    "pkg/mod.py": "def present(x):\n    return x + 1\n",
    "tests/test_mod.py": (
        "from pkg.mod import present\nfrom pkg.mod import missing_name\n\n\n"
        "def test_missing():\n    assert missing_name(present(1)) == 2\n"
    ),
}


@pytest.mark.parametrize("project", ["missing-name"])
async def test_a_missing_name_is_an_error_on_its_module(vscode_client, project):
    editor = vscode_client.editor
    write(editor.root, MISSING_NAME)
    summary = await editor.command("heal.runTests", {"test": "tests/test_mod.py::test_missing"})
    assert summary["errors"] == 1, summary
    [error] = editor.diagnostics("pkg/mod.py")
    assert (error.range.start.line, error.severity, error.code) == (
        0,
        t.DiagnosticSeverity.Error,
        "ImportError",
    )
    assert error.message.startswith(
        "collecting tests/test_mod.py failed: ImportError: cannot import name 'missing_name'"
    )
    assert "(no heal action: tests/test_mod.py:2 imports missing_name from pkg.mod" in error.message
    [hint] = editor.diagnostics("tests/test_mod.py")
    assert (hint.range.start.line, hint.severity) == (1, t.DiagnosticSeverity.Hint)
    uri = editor.open("pkg/mod.py")
    editor.type_text(uri, MISSING_NAME["pkg/mod.py"] + "\n\ndef missing_name(x):\n    return x\n")
    editor.save(uri)
    await eventually(lambda: editor.diagnostics("pkg/mod.py") == [], timeout=60, what="cleared")
    assert editor.diagnostics("tests/test_mod.py") == []
