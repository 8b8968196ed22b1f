"""heal.loadReport: a CI run's JUnit XML report becomes diagnostics on the right function,
without running a test, and its failure can then be healed here; a file that is not a report
is an error that says why and changes nothing."""

import subprocess
import sys

import pytest
from helpers.lsp import eventually
from lsprotocol import types as t

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

MODULE = "shop/inventory.py"


def ci_report(workspace, tmp_path) -> str:
    """The suite run as CI would, on a copy of the checkout elsewhere."""
    ci = tmp_path / "ci"
    subprocess.run(["cp", "-r", str(workspace), str(ci)], check=True)
    report = tmp_path / "report.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}"],
        cwd=ci, capture_output=True, check=False,
    )  # fmt: skip
    return str(report)


# One client profile: loading a report is the server's; the heal and its edit are test_flow's,
# which runs both profiles.
async def test_a_ci_report_shows_up_and_heals(vscode_client, workspace, tmp_path):
    editor = vscode_client.editor
    uri = editor.open(MODULE)
    report = ci_report(workspace, tmp_path)
    summary = await editor.command("heal.loadReport", {"report": report})
    assert (summary["failed"], summary["passed"]) == (1, 3), summary
    [error] = await eventually(lambda: editor.diagnostics(MODULE), what="the report's failure")
    assert error.severity == t.DiagnosticSeverity.Error
    assert error.range.start.line == 12  # `have = self.items[name]`, this checkout's line 13
    assert "test_remove_all failed: KeyError: 'pear'" in error.message

    result = await editor.command(
        "heal.healFunction", {"failure": "tests/test_inventory.py::test_remove_all"}, timeout=120
    )
    assert result["status"] == "verified", result  # healed and verified here, with local runs
    assert "<= 1" not in editor.text(uri)


async def test_what_is_not_a_report_is_refused_with_the_reason(vscode_client, workspace, tmp_path):
    editor = vscode_client.editor
    editor.open(MODULE)
    (tmp_path / "page.xml").write_text("<html/>")
    with pytest.raises(Exception, match="not a JUnit XML report"):
        await editor.command("heal.loadReport", {"report": str(tmp_path / "page.xml")})
    assert any("not a JUnit XML report" in m.message for m in vscode_client.messages)
    assert editor.diagnostics(MODULE) == []
