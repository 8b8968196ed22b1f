"""The editor under a user's pytest-xdist config (`-n 2` in addopts): the server's diagnostics
name the same failing tests as plain pytest does on the same project."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.lsp import server_env

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

SETUP = Path(__file__).resolve().parents[1] / "setups" / "xdist_auto_loadscope"
FAILED = re.compile(r"^FAILED (\S+)", re.M)


@pytest.fixture
def workspace(tmp_path) -> Path:
    """Two test files, one failing test in each, and `-n 2` in the project's own config."""
    root = tmp_path / "basket_project"
    shutil.copytree(SETUP, root, ignore=shutil.ignore_patterns("heal-setup.json"))
    (root / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\npythonpath = ["."]\naddopts = "-n 2"\n'
    )
    return root


def pytest_failures(root: Path) -> list[str]:
    env = {k: v for k, v in server_env().items() if k != "PYTEST_DISABLE_PLUGIN_AUTOLOAD"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-rf", "-p", "no:cacheprovider"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert "2 workers" in done.stdout or "gw0" in done.stdout, done.stdout[-2000:]
    return sorted(FAILED.findall(done.stdout))


async def test_diagnostics_list_the_tests_pytest_reports_failed(vscode_client, workspace):
    editor = vscode_client.editor
    theirs = pytest_failures(workspace)
    assert len(theirs) == 2, theirs
    result = await editor.command("heal.runTests")
    assert (result["ran"], result["failed"]) == (True, 2), result
    failures = await vscode_client.protocol.send_request_async("heal/failures", {})
    assert sorted(f.test for f in failures.failures) == theirs
    published = {d.data["test"] for path in ("basket/prices.py", "basket/stock.py")
                 for d in editor.diagnostics(path)}  # fmt: skip
    assert sorted(published) == theirs
