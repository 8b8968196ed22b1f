"""A workspace that is itself a pytest plugin, run through the real pytest subprocess path.

Its egg-info on the path names a `pytest11` entry point (as faker's and pyfakefs's sdists do), so
pytest imports its modules while it loads installed plugins, before any conftest, and marks them
for its assert rewriting; the plugin module imports another one dynamically, as faker loads its
providers with importlib. Those modules must still report which of their functions a test ran,
and an unsaved buffer of one must still be what the tests import.
"""

import asyncio
import os

import pytest
from heal_ls.testing.options import RunOptions
from heal_ls.testing.runner import run_pytest
from helpers.cli import write

pytestmark = pytest.mark.venv_plugins  # pytest loads plugins by entry point, as a user's does

PROJECT = {
    "shop.egg-info/PKG-INFO": "Metadata-Version: 2.1\nName: shop\nVersion: 1.0\n",
    "shop.egg-info/entry_points.txt": "[pytest11]\nshop = shop.plugin\n",
    "shop/__init__.py": "",
    "shop/plugin.py": "import importlib\n\nPRICES = importlib.import_module('shop.prices')\n",
    "shop/prices.py": "def total(items):\n    return sum(items) + 1\n",
    "tests/test_prices.py": (
        "from shop.plugin import PRICES\n\n\ndef test_total():\n    assert PRICES.total([1, 2]) == 3\n"
    ),
}


@pytest.fixture
def project(tmp_path):
    write(tmp_path, PROJECT)
    return tmp_path


def test_its_modules_imported_by_pytest_report_what_the_test_ran(project):
    prices = os.path.realpath(project / "shop" / "prices.py")
    options = RunOptions(test_timeout=10, run_timeout=120, blocks=True)
    run = asyncio.run(run_pytest(str(project), options))
    (fail,) = run.failures
    assert fail.covered == [f"{prices}:1"]


def test_an_unsaved_buffer_of_one_is_what_the_tests_import(project):
    prices = os.path.realpath(project / "shop" / "prices.py")
    fixed = {prices: "def total(items):\n    return sum(items)\n"}
    run = asyncio.run(run_pytest(str(project), RunOptions(test_timeout=10, overlay=fixed)))
    assert (run.passed, run.failed) == (1, 0)
