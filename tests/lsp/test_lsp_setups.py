"""The editor agrees with plain pytest on the setups whose failure starts outside a test
function: a conftest fixture (errors), a settings plugin (-p in addopts), doctest modules.
Same counts as pytest run with the setup's own config, an Error on the blamed function."""

import os
import shutil
import sys

import pytest
from helpers.setups import load_harness
from lsprotocol import types as t

pytestmark = [pytest.mark.lsp, pytest.mark.e2e, pytest.mark.venv_plugins]

setups = load_harness()


@pytest.mark.parametrize(
    ("project", "blamed"),  # (file, 0-based line of the Error: the raising line or the def)
    [
        ("fixture_error", ("basket/stock.py", 6)),
        ("settings_plugin", ("basket/prices.py", 14)),
        ("doctest_modules", ("basket/prices.py", 11)),
    ],
)
async def test_the_editor_counts_what_pytest_counts(vscode_client, project, blamed, tmp_path):
    editor = vscode_client.editor
    plain = tmp_path / "plain"
    shutil.copytree(setups.SETUPS / project, plain)
    shutil.copytree(setups.SETUPS / project, editor.root, dirs_exist_ok=True)
    theirs = setups.run_pytest(sys.executable, plain, os.environ.get("PYTEST_ADDOPTS", ""))
    summary = await editor.command("heal.runTests")
    assert (summary["failed"], summary["passed"], summary["errors"]) == (
        theirs.failed,
        theirs.passed,
        theirs.errors,
    )
    lines = [d.range.start.line for d in editor.diagnostics(blamed[0])]
    errors = [d for d in editor.diagnostics(blamed[0]) if d.severity == t.DiagnosticSeverity.Error]
    assert errors and blamed[1] in lines, lines
