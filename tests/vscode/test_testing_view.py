"""The Testing view and a CI report in a real VS Code (code-server 4.139 = VS Code 1.139, headless
Chromium), each from a clean profile with the packaged .vsix, driven through the UI like a user
(ui_testing.js; issue 25):

- the Testing view shows the failing test of heal-ls's run without an inline message (the
  diagnostic and its quick fix have that line); run from the Testing view, the failure's message
  is inline on the failing line of the suspect function; Heal and Debug on the failed test's
  context menu; Heal fixes the file;
- Heal: Load CI Test Report puts a CI run's failure (JUnit XML) on the right function in the
  Problems panel; Heal: Heal Failing Test then heals it here;
- one heal, one notification (issue 25, item 10): the server's, not the client's as well.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from vscode_harness import TIMEOUT, code_server_ui, heal_settings, model_env, workspace_copy

pytestmark = [pytest.mark.vscode, pytest.mark.e2e, TIMEOUT]


def fixed_notifications(stdout: str) -> int:
    found = re.search(r"^fixed notifications: (\d+)", stdout, re.M)
    assert found, stdout[-3000:]
    return int(found.group(1))


def ci_report(ws: Path, tmp_path: Path) -> Path:
    """The suite run as CI would, in a checkout elsewhere, reporting as JUnit XML."""
    ci = tmp_path / "ci-checkout"
    subprocess.run(["cp", "-r", str(ws), str(ci)], check=True)
    report = tmp_path / "report.xml"
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}"]
    subprocess.run(argv, cwd=ci, capture_output=True, check=False, timeout=120)
    assert "test_remove_all" in report.read_text()
    return report


def test_the_testing_view_shows_the_located_failure_and_heals_from_its_menu(
    vscode_tools, vsix, fake_model, tmp_path
):
    ws = workspace_copy(tmp_path / "inventory", heal_settings())
    env = vscode_tools.env(**model_env(fake_model))
    profile = tmp_path / "profile"
    run = code_server_ui(vscode_tools, vsix, ws, profile, env, "ui_testing.js", MODE="testing")
    # heal-ls's own run (palette Heal: Run Tests) puts no test message over the diagnostic's line
    assert re.search(r"^inline messages after Heal: Run Tests: 0$", run.stdout, re.M), run.stdout
    # run from the Testing view, the failure's message is inline on Inventory.remove's failing line
    inline = (
        r"^inline message: \"KeyError: 'pear'.* on the line \"have = self.items\[name\]\": true$"
    )
    assert re.search(inline, run.stdout, re.M), run.stdout[-3000:]
    menu = re.search(r"^context menu: (.*)$", run.stdout, re.M)
    assert menu and {"Heal Failing Test", "Debug Failing Test"} <= set(menu.group(1).split(" | "))
    assert "== 0" in (ws / "shop" / "inventory.py").read_text()
    assert fixed_notifications(run.stdout) == 1


def test_a_ci_report_from_the_palette_shows_on_the_function_and_heals(
    vscode_tools, vsix, fake_model, tmp_path
):
    ws = workspace_copy(tmp_path / "inventory", heal_settings())
    report = ci_report(ws, tmp_path)
    env = vscode_tools.env(**model_env(fake_model))
    profile = tmp_path / "profile"
    run = code_server_ui(
        vscode_tools, vsix, ws, profile, env, "ui_testing.js", MODE="report", REPORT=str(report)
    )
    problems = re.search(r"^problems: (.*)$", run.stdout, re.M)
    assert problems, run.stdout[-3000:]
    # on Inventory.remove's failing line, `have = self.items[name]` (line 13)
    assert re.search(r"test_remove_all failed: KeyError: 'pear'.*\[Ln 13, Col 9\]", problems[1])
    assert "== 0" in (ws / "shop" / "inventory.py").read_text()
    assert fixed_notifications(run.stdout) == 1
