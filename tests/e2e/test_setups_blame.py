"""In the setups whose failure starts outside a test function (a conftest fixture, unittest's
setUp, a doctest, a plugin's settings), `heal-ls check` blames the workspace function."""

import json
import shutil
from pathlib import Path

import pytest
from helpers.cli import heal_check

pytestmark = [pytest.mark.e2e, pytest.mark.venv_plugins]

SETUPS = Path(__file__).resolve().parents[1] / "setups"


@pytest.mark.parametrize(
    ("name", "test", "outcome_counts", "target"),
    [
        (
            "fixture_error",
            "tests/test_basket.py::test_pears",
            (1, 2),
            ("basket/stock.py", "load", "setup"),
        ),
        (
            "unittest_only",
            "tests/test_basket.py::StockTest::test_pears",
            (2, 0),
            ("basket/stock.py", "load", "call"),
        ),
        (
            "doctest_modules",
            "basket/prices.py::basket.prices.shipping",
            (1, 0),
            ("basket/prices.py", "shipping", "call"),
        ),
        (
            "settings_plugin",
            "tests/test_prices.py::test_free_shipping_from_50",
            (1, 0),
            ("basket/prices.py", "shipping", "call"),
        ),
    ],
)
def test_the_failure_is_blamed_on_workspace_code(tmp_path, name, test, outcome_counts, target):
    root = tmp_path / name
    shutil.copytree(SETUPS / name, root)
    result = heal_check("--json", cwd=root)
    assert result.returncode == 1, result.stderr
    doc = json.loads(result.stdout)
    assert (doc["failed"], doc["errors"]) == outcome_counts
    failure = next(f for f in doc["failures"] if f["test"] == test)
    top = failure["suspects"][0]
    assert (top["path"], top["qualname"], failure["when"]) == target and failure["healable"]
    if failure["when"] == "setup":  # pytest's "ERROR at setup of test_pears"
        short = heal_check("--short", cwd=root).stdout
        assert f"basket/stock.py:7:9: {test} error at setup: ValueError: not enough" in short


def test_a_failure_in_a_tox_run_project_names_what_tox_would_have_set(tmp_path):
    shutil.copytree(SETUPS / "tox_only", tmp_path / "shop")
    root = tmp_path / "shop"
    (root / "tox.ini").write_text(
        "[testenv]\ndeps = pytest\nsetenv =\n    BASKET_MODE = strict\n"
        "commands = pytest --strict-markers {posargs}\n"
    )
    result = heal_check(cwd=root)
    assert result.returncode == 1, result.stderr
    notes = [line for line in result.stderr.splitlines() if line.startswith("heal-ls check: note:")]
    assert notes == [
        "heal-ls check: note: tox.ini sets BASKET_MODE for the tests; heal-ls runs pytest"
        " directly without them: set them in the environment heal-ls runs in",
        "heal-ls check: note: tox.ini runs pytest with --strict-markers; heal-ls runs pytest"
        ' directly without them: pass them with --pytest-args "--strict-markers"',
    ]
    assert "failed" in result.stdout
