"""The extension's UI in a real VS Code (code-server 4.139 = VS Code 1.139, headless Chromium),
driven like a user: one clean profile with the packaged .vsix, one code-server and one browser
for the three tests, each on a workspace of its own (ui_session.js; loading a workbench costs
~20 s of CPU, a code-server and a browser per test as much again; issue 24, item 5):

- the lightbulb (ui_quickfix.js): Ctrl+. -> "AI heal ..." -> the fixed code in the editor;
- the Testing view (ui_testing.js; issue 25) shows the failing test of heal-ls's run without an
  inline message (the diagnostic and its quick fix have that line); run from the Testing view,
  the failure's message is inline on the failing line of the suspect function; Heal and Debug
  on the failed test's context menu; Heal fixes the file;
- Heal: Load CI Test Report puts a CI run's failure (JUnit XML) on the right function in the
  Problems panel; Heal: Heal Failing Test then heals it here;
- one heal, one notification (issue 25, item 10): the server's, not the client's as well.

Every workspace has `heal.useCache` off: the profile's heal-ls cache is shared, and each heal
still asks the (fake) model instead of re-verifying the fix an earlier stage remembered.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from vscode_harness import (
    CACHE,
    TIMEOUT,
    UiSession,
    code_server_ui,
    heal_settings,
    model_env,
    workspace_copy,
)

pytestmark = [pytest.mark.vscode, pytest.mark.e2e, TIMEOUT]

DRIVES = ("quickfix", "testing", "report")


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


@pytest.fixture(scope="module")
def workspaces(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("ui")
    settings = {**heal_settings(), "heal.useCache": False}
    return {drive: workspace_copy(tmp / drive / "inventory", settings) for drive in DRIVES}


@pytest.fixture(scope="module")
def ui(vscode_tools, vsix, fake_model, workspaces, tmp_path_factory) -> UiSession:
    """The three stages, one after the other, in one code-server and one browser."""
    tmp = tmp_path_factory.mktemp("ui-session")
    report = ci_report(workspaces["report"], tmp)
    stages = [{"drive": drive, "ws": str(ws)} for drive, ws in workspaces.items()]
    stages[-1]["report"] = str(report)
    env = vscode_tools.env(**model_env(fake_model))
    return code_server_ui(vscode_tools, vsix, tmp / "profile", env, stages)


def test_lightbulb_heals_through_the_ui(ui, workspaces):
    """Ctrl+. -> AI heal -> fixed code in the editor."""
    ui.stage("quickfix")
    assert "== 0" in (workspaces["quickfix"] / "shop" / "inventory.py").read_text()
    assert (CACHE / "screenshots" / "vscode-heal-quickfix.png").stat().st_size > 10_000


def test_the_testing_view_shows_the_located_failure_and_heals_from_its_menu(ui, workspaces):
    out = ui.stage("testing")
    # heal-ls's own run (palette Heal: Run Tests) puts no test message over the diagnostic's line
    assert re.search(r"^inline messages after Heal: Run Tests: 0$", out, re.M), out
    # run from the Testing view, the failure's message is inline on Inventory.remove's failing line
    inline = (
        r"^inline message: \"KeyError: 'pear'.* on the line \"have = self.items\[name\]\": true$"
    )
    assert re.search(inline, out, re.M), out[-3000:]
    menu = re.search(r"^context menu: (.*)$", out, re.M)
    assert menu and {"Heal Failing Test", "Debug Failing Test"} <= set(menu.group(1).split(" | "))
    assert "== 0" in (workspaces["testing"] / "shop" / "inventory.py").read_text()
    assert fixed_notifications(out) == 1


def test_a_ci_report_from_the_palette_shows_on_the_function_and_heals(ui, workspaces):
    out = ui.stage("report")
    problems = re.search(r"^problems: (.*)$", out, re.M)
    assert problems, out[-3000:]
    # on Inventory.remove's failing line, `have = self.items[name]` (line 13)
    assert re.search(r"test_remove_all failed: KeyError: 'pear'.*\[Ln 13, Col 9\]", problems[1])
    assert "== 0" in (workspaces["report"] / "shop" / "inventory.py").read_text()
    assert fixed_notifications(out) == 1
