"""The editor on projects with a user's pytest config (tests/setups/): the server's diagnostics
name the same failing tests as plain pytest does on the same project. Plain pytest's failing ids
are written down here: tests/e2e/test_setups.py runs plain pytest on these folders with their
own config and checks `heal-ls check` names the same ids (running it again here cost ~1-3 s of
CPU a case, its xdist workers included)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytestmark = [pytest.mark.lsp, pytest.mark.e2e, pytest.mark.venv_plugins]

SETUPS = Path(__file__).resolve().parents[1] / "setups"
# setup folder, its config rewritten (None: as it is), the failing tests' modules, the tests
# plain pytest reports failed there
PRICES = "tests/test_prices.py::test_free_shipping_from_50"
CASES = {
    # two test files, one failing test in each, and `-n 2` in the project's own config
    "xdist_n2": ("xdist_auto_loadscope", ("pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["."]\naddopts = "-n 2"\n'), ("basket/prices.py", "basket/stock.py"), (PRICES, "tests/test_stock.py::test_take_last_drops_item")),
    # `--lf` in addopts: an option of pytest's cache plugin, which heal-ls's runs keep
    "last_failed": ("last_failed", None, ("basket/prices.py",), (PRICES,)),
    # pytest-cov, alone and with xdist (the editor's runs are in-process: no workers to cover)
    "cov": ("cov", None, ("basket/prices.py",), (PRICES,)),
    "xdist_cov": ("xdist_cov", None, ("basket/prices.py",), (PRICES,)),
}  # fmt: skip


@pytest.fixture(params=sorted(CASES))
def case(request):
    return CASES[request.param]


@pytest.fixture
def workspace(tmp_path, case) -> Path:
    folder, config, _, _ = case
    root = tmp_path / "basket_project"
    shutil.copytree(SETUPS / folder, root, ignore=shutil.ignore_patterns("heal-setup.json"))
    if config is not None:
        (root / config[0]).write_text(config[1])
    return root


async def test_diagnostics_list_the_tests_pytest_reports_failed(vscode_client, workspace, case):
    editor = vscode_client.editor
    _, _, modules, failed = case
    theirs = sorted(failed)
    result = await editor.command("heal.runTests")
    assert (result["ran"], result["failed"]) == (True, len(theirs)), result
    failures = await vscode_client.protocol.send_request_async("heal/failures", {})
    assert sorted(f.test for f in failures.failures) == theirs
    published = {d.data["test"] for path in modules for d in editor.diagnostics(path)}
    assert sorted(published) == theirs
