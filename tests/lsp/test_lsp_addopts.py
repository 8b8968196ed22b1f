"""The editor on projects with a user's pytest config (tests/setups/): the server's diagnostics
name the same failing tests as plain pytest does on the same project."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.lsp import server_env

pytestmark = [pytest.mark.lsp, pytest.mark.e2e, pytest.mark.venv_plugins]

SETUPS = Path(__file__).resolve().parents[1] / "setups"
FAILED = re.compile(r"^FAILED (\S+)", re.M)
# setup folder, its config rewritten (None: as it is), the failing tests' modules
CASES = {
    # two test files, one failing test in each, and `-n 2` in the project's own config
    "xdist_n2": ("xdist_auto_loadscope", ("pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["."]\naddopts = "-n 2"\n'), ("basket/prices.py", "basket/stock.py")),
    # `--lf` in addopts: an option of pytest's cache plugin, which heal-ls's runs keep
    "last_failed": ("last_failed", None, ("basket/prices.py",)),
    # pytest-cov, alone and with xdist (the editor's runs are in-process: no workers to cover)
    "cov": ("cov", None, ("basket/prices.py",)),
    "xdist_cov": ("xdist_cov", None, ("basket/prices.py",)),
}  # fmt: skip


@pytest.fixture(params=sorted(CASES))
def case(request):
    return CASES[request.param]


@pytest.fixture
def workspace(tmp_path, case) -> Path:
    folder, config, _ = case
    root = tmp_path / "basket_project"
    shutil.copytree(SETUPS / folder, root, ignore=shutil.ignore_patterns("heal-setup.json"))
    if config is not None:
        (root / config[0]).write_text(config[1])
    return root


def pytest_failures(root: Path) -> list[str]:
    """Plain pytest's failing ids, on a copy (its cache must not change what the server runs)."""
    copy = root.parent / "pytest_copy"
    shutil.copytree(root, copy)
    env = {k: v for k, v in server_env().items() if k != "PYTEST_DISABLE_PLUGIN_AUTOLOAD"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-rf"],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    return sorted(FAILED.findall(done.stdout))


async def test_diagnostics_list_the_tests_pytest_reports_failed(vscode_client, workspace, case):
    editor = vscode_client.editor
    theirs = pytest_failures(workspace)
    modules = case[2]
    assert len(theirs) == len(modules), theirs
    result = await editor.command("heal.runTests")
    assert (result["ran"], result["failed"]) == (True, len(theirs)), result
    failures = await vscode_client.protocol.send_request_async("heal/failures", {})
    assert sorted(f.test for f in failures.failures) == theirs
    published = {d.data["test"] for path in modules for d in editor.diagnostics(path)}
    assert sorted(published) == theirs
