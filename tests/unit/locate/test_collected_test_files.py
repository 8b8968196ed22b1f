"""A file pytest collected a test from is a test file (issue 22, class N): a project's own
`python_files` (rope's `*test.py`) names tests the name rule does not know, and the test's
own function must not be the suspect."""

import asyncio
import os
import time

from heal_ls import models
from heal_ls.diagnose import diagnose
from heal_ls.heal.config import HealConfig
from heal_ls.heal.loop import heal_failure
from heal_ls.heal.prompt import prompt_for
from heal_ls.impact.store import ImpactMap
from heal_ls.locate import locate
from heal_ls.pysource import paths
from heal_ls.testing.options import RunOptions
from heal_ls.testing.runner import run_pytest

from tests.helpers.projects import DOCTESTED, write_files


def test_a_test_file_is_one_the_run_collected_from(tmp_path):
    (tmp_path / "checks").mkdir()
    check = tmp_path / "checks" / "pricecheck.py"
    tests = paths.TestFiles(str(tmp_path), [str(check), str(check)])
    assert str(check) in tests
    assert str(tmp_path / "test_shop.py") in tests  # the name rule still holds
    # python_files patterns alone would take a package's __init__.py: only collected files count
    assert str(tmp_path / "shop" / "__init__.py") not in tests
    assert str(check) not in paths.TestFiles(str(tmp_path))


def test_a_module_whose_doctests_ran_stays_code(tmp_path):
    code, check = str(tmp_path / "pkg" / "maths.py"), str(tmp_path / "checks" / "mathcheck.py")
    run = models.RunResult(str(tmp_path))
    run.tests = [
        models.TestOutcome("pkg/maths.py::pkg.maths.twice", "passed", path=code),
        models.TestOutcome("checks/mathcheck.py::Twice::test_two[1.5]", "passed", path=check),
    ]
    failing = models.Failure(
        "pkg/maths.py::pkg.maths.half",
        "AssertionError",
        "",
        test="pkg/maths.py::pkg.maths.half",
        test_path=code,
    )
    tests = paths.TestFiles.of_run(str(tmp_path), run, failing)
    assert check in tests
    assert code not in tests


def test_the_test_of_a_project_python_files_is_no_suspect(tmp_path):
    # python_files names __init__.py too (as rope's does): only where pytest collects (checks/)
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\npython_files = *check.py __init__.py\ntestpaths = checks\n", encoding="utf-8"
    )
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("def total(items):\n    return sum(items) - 1\n")
    (tmp_path / "checks").mkdir()
    check = tmp_path / "checks" / "pricecheck.py"
    check.write_text(
        "from shop import total\n\n\n"
        "def test_total():\n    items = [1, 2]\n    assert total(items) == 3\n",
        encoding="utf-8",
    )
    run = asyncio.run(run_pytest(str(tmp_path), RunOptions(test_timeout=10)))
    assert run.failed == 1
    failure = run.failures[0]
    # the agent knew the collected module for a test file before it imported: not instrumented
    # as code (so pytest rewrote its asserts), its def not recorded as code that ran
    assert "where 2 = total([1, 2])" in failure.message
    assert not [key for key in failure.covered if key.startswith(str(check))]
    assert any(key.startswith(str(tmp_path / "shop" / "__init__.py")) for key in failure.covered)
    located = locate(failure, str(tmp_path), run)
    names = [s.qualname for s in located.suspects]
    assert names[0] == "total"
    assert "test_total" not in names


def test_a_heal_refuses_a_function_of_a_collected_test_file(tmp_path):
    # the attack: the spec's own helper (in a `*check.py` file pytest collects, which the name
    # rule does not know) is offered as the function to heal; editing it would make the test pass
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\npython_files = *check.py\ntestpaths = checks\n", encoding="utf-8"
    )
    (tmp_path / "shop.py").write_text("def total(items):\n    return sum(items)\n")
    (tmp_path / "checks").mkdir()
    check = tmp_path / "checks" / "pricecheck.py"
    check.write_text(
        "from shop import total\n\n\n"
        "def expected():\n    return 4\n\n\n"
        "def test_total():\n    assert total([1, 2]) == expected()\n",
        encoding="utf-8",
    )
    run = asyncio.run(run_pytest(str(tmp_path), RunOptions(test_timeout=10)))
    assert run.failed == 1
    helper = models.Suspect(str(check), "expected", 4, 0, 5, 12, "chosen by hand", def_line=4)
    config = HealConfig(provider="local", warm=False)
    result = asyncio.run(
        heal_failure(str(tmp_path), run.failures[0], config=config, run=run, suspect=helper)
    )
    assert result.status == "skipped"
    assert result.reason is not None and "checks/pricecheck.py holds tests" in result.reason
    assert "return 4" in check.read_text(encoding="utf-8")


def checked_shop(root):
    """A project whose tests are `checks/*check.py` (its own python_files): `total` is one off,
    and the failing test asserts in its own body, so no frame is inside the function."""
    write_files(
        root,
        {
            "pytest.ini": "[pytest]\npython_files = *check.py\ntestpaths = checks\n",
            "shop.py": "def total(items):\n    return sum(items) - 1\n",
            "checks/pricecheck.py": """
                from shop import total


                def test_total():
                    expected_sum = 1234
                    items = [1000, 234]
                    assert total(items) == expected_sum
                """,
        },
    )
    run = asyncio.run(run_pytest(str(root), RunOptions(test_timeout=10)))
    assert run.failed == 1
    return run


def test_the_prompt_quotes_no_locals_of_a_collected_test(tmp_path):
    # a test's locals are its expected values: quoted "as the failing frame's" they invite a
    # model to copy 1234 into the code; a test_*.py test's never were
    run = checked_shop(tmp_path)
    failure = run.failures[0]
    assert any(f.locals.get("expected_sum") == "1234" for f in failure.frames)
    suspect = locate(failure, str(tmp_path), run).suspects[0]
    assert suspect.qualname == "total"
    text = (tmp_path / "shop.py").read_text(encoding="utf-8")
    tests = paths.TestFiles.of_run(str(tmp_path), run, failure)
    prompt = prompt_for(suspect, text, failure, tests, [])
    assert "## Failing test `test_total`" in prompt.user  # the test itself is still shown
    assert "## Locals" not in prompt.user


def test_a_testcase_helper_beside_collected_tests_is_no_suspect(tmp_path):
    # checks/support.py holds a TestCase's assertion helper (no test of its own, so pytest does
    # not collect it); the tests beside it are `*check.py`: the helper checks what the test
    # computed, and the failure it raises is the test's own check
    write_files(
        tmp_path,
        {
            "pytest.ini": "[pytest]\npython_files = *check.py\ntestpaths = checks\n",
            "shop.py": "def total(items):\n    return sum(items) - 1\n",
            "checks/__init__.py": "",
            "checks/support.py": """
                import unittest


                class ShopCase(unittest.TestCase):
                    def assertSums(self, got, items):
                        self.assertEqual(got, sum(items))
                """,
            "checks/pricecheck.py": """
                from checks.support import ShopCase
                from shop import total


                class TotalCheck(ShopCase):
                    def test_total(self):
                        self.assertSums(total([1, 2]), [1, 2])
                """,
        },
    )
    run = asyncio.run(run_pytest(str(tmp_path), RunOptions(test_timeout=10)))
    assert run.failed == 1
    names = [s.qualname for s in locate(run.failures[0], str(tmp_path), run).suspects]
    assert names[0] == "total"
    assert "ShopCase.assertSums" not in names


def sharing_a_helper(root, priced: str) -> None:
    """checks/pricecheck.py asserts `priced == expected(items)`, `expected` imported from
    checks/basecheck.py, a test file too (shop.discount is one off)."""
    write_files(
        root,
        {
            "pytest.ini": "[pytest]\npython_files = *check.py\ntestpaths = checks\n",
            "shop.py": "def total(items):\n    return sum(items)\n\n\n"
            "def discount(price):\n    return price - 1\n",
            "checks/__init__.py": "",
            "checks/basecheck.py": """
                from shop import total


                def expected(items):
                    return sum(items)


                def test_one():
                    assert total([1]) == expected([1])
                """,
            "checks/pricecheck.py": f"""
                from checks.basecheck import expected
                from shop import discount, total


                def test_two():
                    items = [1, 2]
                    assert {priced} == expected(items)
                """,
        },
    )


def test_the_green_snapshot_holds_no_test_file_the_map_knows(tmp_path):
    # checks/pricecheck.py imports a helper of checks/basecheck.py: a run of pricecheck.py alone
    # does not collect basecheck.py, so its helper runs as code and the map holds it; the green
    # snapshot must not (a later edit of the test's helper is no regression of the code)
    sharing_a_helper(tmp_path, "total(items)")
    past = time.time() - 10  # saved before the runs started
    for path in tmp_path.rglob("*.py"):
        os.utime(path, (past, past))
    root, options = str(tmp_path), RunOptions(test_timeout=10)
    alone = asyncio.run(run_pytest(root, options, nodeids=["checks/pricecheck.py"]))
    whole = asyncio.run(run_pytest(root, options))
    assert alone.passed == 1 and whole.passed == 2
    helper = f"{tmp_path / 'checks' / 'basecheck.py'}:4"
    assert helper in alone.tests[0].covered  # the map learns the helper as code
    with ImpactMap.open(root) as impact:
        impact.record(alone, complete=["checks/pricecheck.py"])
        impact.record(whole, complete=["checks/basecheck.py", "checks/pricecheck.py"])
        green = {path for (path,) in impact.db.execute("SELECT path FROM green_files")}
        assert green == {"shop.py"}
        for name, old in (("checks/basecheck.py", "sum(items)"), ("shop.py", "sum(items)")):
            (tmp_path / name).write_text(
                (tmp_path / name).read_text().replace(old, f"{old} + 0"), encoding="utf-8"
            )
        changed = impact.changed_since_green([helper, f"{tmp_path / 'shop.py'}:1"])
    assert changed == [f"{tmp_path / 'shop.py'}:1"]


def test_a_helper_of_a_check_file_the_map_knows_is_no_suspect_of_a_focused_run(tmp_path):
    # `heal-ls check checks/pricecheck.py`: the run collects that file only, and the helper it
    # imports from basecheck.py runs as code; the map's earlier full run knows basecheck.py
    # holds tests, so its helper is the test's own and never the heal target
    sharing_a_helper(tmp_path, "discount(total(items))")
    root, options = str(tmp_path), RunOptions(test_timeout=10)
    whole, _ = asyncio.run(diagnose(root, options))  # recorded into the map
    assert (whole.passed, whole.failed) == (1, 1)
    run, [(failure, located)] = asyncio.run(diagnose(root, options, tests=["checks/pricecheck.py"]))
    names = [s.qualname for s in located.suspects]
    assert "expected" not in names, names
    assert names[0] == "discount"


def test_the_green_snapshot_keeps_a_module_the_map_holds_only_doctests_of(tmp_path):
    # --doctest-modules collects maths.py::maths.twice: the map holds a test of maths.py, but
    # the module is code, and the green snapshot keeps it
    write_files(tmp_path, DOCTESTED)
    past = time.time() - 10  # saved before the run started
    for path in tmp_path.rglob("*.py"):
        os.utime(path, (past, past))
    run = asyncio.run(run_pytest(str(tmp_path), RunOptions(test_timeout=10)))
    assert run.passed == 2
    with ImpactMap.open(str(tmp_path)) as impact:
        impact.record(run, complete=["maths.py", "tests/test_maths.py"])
        green = {path for (path,) in impact.db.execute("SELECT path FROM green_files")}
    assert green == {"maths.py"}


def test_a_package_module_only_named_like_tests_is_code(tmp_path):
    # trio's src/trio/testing/_trio_test.py: the @trio_test decorator, no test of its own
    decorator = write_files(
        tmp_path,
        {
            "src/loop/testing/_loop_test.py": "def loop_test(fn):\n"
            "    def wrapper():\n        return run(fn)\n    return wrapper\n",
            "src/loop/testing/check_test.py": "def test_it():\n    assert True\n",
            "src/loop/testing/case_test.py": "import unittest\n\n\n"
            "class case(unittest.TestCase):\n    pass\n",
        },
    )
    tests = paths.TestFiles(str(tmp_path))
    assert str(decorator / "src/loop/testing/_loop_test.py") not in tests
    assert not tests.is_test_module(str(tmp_path / "src/loop/testing/_loop_test.py"))
    assert str(tmp_path / "src/loop/testing/check_test.py") in tests  # it defines a test
    assert str(tmp_path / "src/loop/testing/case_test.py") in tests  # a TestCase, whatever its name
    assert str(tmp_path / "tests" / "helper_test.py") in tests  # a tests/ folder still says so
    assert str(tmp_path / "conftest.py") in tests


def test_the_loop_a_test_decorator_calls_is_not_on_the_failing_path(tmp_path):
    write_files(
        tmp_path,
        {
            "src/loop/testing/_loop_test.py": "def loop_test(fn):\n"
            "    def wrapper():\n        return run(fn)\n    return wrapper\n",
            "src/loop/core.py": "def run(fn):\n    return fn()\n\n\n"
            "def threshold():\n    return float('inf')\n",
            "tests/test_clock.py": "from loop.core import threshold\n\n\n"
            "def test_threshold():\n    assert threshold() == 2.0\n",
        },
    )
    frames = [
        models.Frame(str(tmp_path / "src/loop/testing/_loop_test.py"), 3, "wrapper"),
        models.Frame(str(tmp_path / "src/loop/core.py"), 2, "run"),
        models.Frame(str(tmp_path / "tests/test_clock.py"), 5, "test_threshold"),
    ]
    failure = models.Failure(
        "tests/test_clock.py::test_threshold",
        "AssertionError",
        "assert inf == 2.0",
        frames=frames,
        test="tests/test_clock.py::test_threshold",
        test_path=str(tmp_path / "tests/test_clock.py"),
        test_line=5,
    )
    reasons = {s.qualname: s.reason for s in locate(failure, str(tmp_path)).suspects}
    assert "on the failing call path" not in reasons.get("run", "")
    assert "wrapper" not in reasons and "loop_test.<locals>.wrapper" not in reasons
