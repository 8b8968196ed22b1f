"""A project whose addopts load a plugin of its own package (`-p mypkg.plugin`, as trio does):
pytest imports that plugin, and with it the package, before heal-ls's plugin, so the package's
functions ran unrecorded and no test's evidence named them. Run for real."""

import asyncio
from pathlib import Path

import pytest
from heal_ls.diagnose import diagnose
from heal_ls.testing.options import RunOptions
from helpers.projects import write_files

FILES = {
    "pytest.ini": "[pytest]\naddopts = -p shop.testing_plugin\ntestpaths = tests\n",
    "shop/__init__.py": "from shop.prices import total\n",
    "shop/prices.py": """
        def total(prices):
            return sum(prices[1:])
    """,
    "shop/testing_plugin.py": """
        import pytest

        import shop


        @pytest.fixture
        def basket():
            return [3, 4]
    """,
    "tests/test_prices.py": """
        from shop import total


        def test_total(basket):
            assert total(basket) == 7
    """,
}


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    project: Path = write_files(tmp_path_factory.mktemp("shop"), FILES)
    return project, asyncio.run(diagnose(project, RunOptions(test_timeout=60)))


def test_the_package_a_project_plugin_imported_first_is_recorded(checked):
    project, (run, located) = checked
    (failure,) = run.failures
    prices = str(project / "shop" / "prices.py")
    assert f"{prices}:1" in failure.covered, failure.covered
    ((_, where),) = located
    assert where.suspects[0].qualname == "total", where.suspects[:3]
