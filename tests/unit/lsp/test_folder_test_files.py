"""The editor knows a check file holds tests from the impact map an earlier run wrote (an
earlier session's, `heal-ls check` or `index`), before it ran anything itself (issue 22)."""

import asyncio

from heal_ls.impact.store import ImpactMap
from heal_ls.lsp.runs.test_files import holds_tests
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.testing.options import RunOptions
from heal_ls.testing.runner import run_pytest

from tests.helpers.projects import DOCTESTED, write_files


def test_a_check_file_the_map_holds_tests_of_holds_tests(tmp_path):
    write_files(
        tmp_path,
        {
            "pytest.ini": "[pytest]\npython_files = *check.py\n",
            "shop.py": "def total(items):\n    return sum(items)\n",
            # collected as a unittest.TestCase under another name: neither the file's name
            # nor its top-level lines say so
            "checks/basecheck.py": """
                from unittest import TestCase as Case

                from shop import total


                class BaseCheck(Case):
                    def test_empty(self):
                        self.assertEqual(total([]), 0)
                """,
        },
    )
    check, code = str(tmp_path / "checks" / "basecheck.py"), str(tmp_path / "shop.py")
    folder = Folder(str(tmp_path))
    assert not holds_tests(folder, check)  # nothing run, no map: nothing says so
    run = asyncio.run(run_pytest(str(tmp_path), RunOptions(test_timeout=10)))
    assert run.passed == 1
    with ImpactMap.open(str(tmp_path)) as impact:
        impact.record(run)
    assert holds_tests(folder, check)
    assert not holds_tests(folder, code)


def test_a_module_the_map_holds_only_doctests_of_is_code(tmp_path):
    """--doctest-modules collects `src/recap/maths.py::recap.maths.twice`: the map holds a test
    of that module, but it is code (its `mean` was dropped from the ranking as a test file's)."""
    write_files(tmp_path, DOCTESTED)
    run = asyncio.run(run_pytest(str(tmp_path), RunOptions(test_timeout=10)))
    assert run.passed == 2
    with ImpactMap.open(str(tmp_path)) as impact:
        impact.record(run)
        assert impact.test_files() == [str(tmp_path / "tests" / "test_maths.py")]
    assert not holds_tests(Folder(str(tmp_path)), str(tmp_path / "maths.py"))
