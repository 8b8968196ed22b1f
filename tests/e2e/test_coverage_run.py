"""Guard discovery: the traced run of the tests around a suspect, on the original code, cached."""

import asyncio
import sys

import pytest
from heal_ls.testing.coverage_run import coverage_run, select_test_files
from heal_ls.testing.options import RunOptions
from heal_ls.testing.warm.client import get_warm_runner, shutdown_all


def _project(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "rules.py").write_text(
        "def match(parts):\n    return 'push' in parts\n\n\ndef other():\n    return 1\n"
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_rules.py").write_text(
        "from pkg.rules import match\n\n"
        "def test_new():\n    assert match(['pull'])\n\n"
        "def test_push():\n    assert match(['push'])\n\n"
        "def test_unrelated():\n    assert 1 + 1 == 2\n"
    )
    (tmp_path / "tests" / "test_elsewhere.py").write_text(
        "from pkg import rules\n\n"
        "def test_empty():\n    assert not rules.match([])\n\n"
        "def test_broken():\n    assert rules.other() == 2\n"
    )
    (tmp_path / "tests" / "test_unrelated_module.py").write_text(
        "import json\n\ndef test_json():\n    assert json.loads('1') == 1\n"
    )
    return tmp_path


def test_selects_failing_modules_and_importers(tmp_path):
    root = _project(tmp_path)
    files = select_test_files(str(root), [str(root / "pkg" / "rules.py")], [])
    assert files == ["tests/test_elsewhere.py", "tests/test_rules.py"]
    only_failing = select_test_files(str(root), [], ["tests/test_rules.py::test_new"])
    assert only_failing == ["tests/test_rules.py"]


def test_guards_are_passing_tests_that_ran_the_function_and_the_run_is_cached(tmp_path):
    root = _project(tmp_path)
    rules = str(root / "pkg" / "rules.py")

    def discover():
        return asyncio.run(
            coverage_run(
                str(root), suspect_paths=[rules], failing=["tests/test_rules.py::test_new"]
            )
        )

    run = discover()
    assert run.error is None and not run.cached
    assert run.ran == ["tests/test_elsewhere.py", "tests/test_rules.py"]
    nodeids = {t.nodeid for t in run.tests}
    assert "tests/test_rules.py::test_new" not in nodeids  # the failing test is deselected
    guards = {t.nodeid for t in run.covering(f"{rules}:1")}
    assert guards == {"tests/test_rules.py::test_push", "tests/test_elsewhere.py::test_empty"}
    assert [t.nodeid for t in run.not_passing()] == ["tests/test_elsewhere.py::test_broken"]
    assert all(t.duration > 0 for t in run.tests)

    again = discover()
    assert again.cached and {t.nodeid for t in again.covering(f"{rules}:1")} == guards

    (root / "pkg" / "rules.py").write_text(
        "def match(parts):\n    return 'push' in parts\n\n\ndef other():\n    return 2\n"
    )
    changed = discover()
    assert not changed.cached and changed.not_passing() == []
    assert changed.ran == ["tests/test_elsewhere.py::test_broken"]  # the one that ran other()
    assert {t.nodeid for t in changed.covering(f"{rules}:1")} == guards  # from the map


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
async def test_exclude_drops_exactly_the_named_ids_not_their_prefix_siblings(tmp_path, warm):
    """pytest's --deselect matches prefixes: excluding test_x would also drop test_x_empty and
    test_x[...]; the guards would then miss exactly the siblings a bad fix breaks."""
    (tmp_path / "calc.py").write_text("def double(x):\n    return x * 2\n")
    (tmp_path / "test_calc.py").write_text(
        "import pytest\nfrom calc import double\n\n"
        "def test_double():\n    assert double(2) == 5\n\n"
        "def test_double_zero():\n    assert double(0) == 0\n\n"
        "@pytest.mark.parametrize('x', [1, 2])\n"
        "def test_double_param(x):\n    assert double(x) == x + x\n\n"
        "@pytest.mark.parametrize('x', [1, 2])\n"
        "def test_twice(x):\n    assert double(x) == 2 * x\n"
    )
    run = await coverage_run(
        str(tmp_path),
        failing=["test_calc.py::test_double"],
        exclude=["test_calc.py::test_double", "test_calc.py::test_twice[1]"],
        options=RunOptions(warm=get_warm_runner(sys.executable, str(tmp_path)) if warm else None),
    )
    await shutdown_all()
    assert run.error is None
    assert sorted(t.nodeid for t in run.passing()) == [
        "test_calc.py::test_double_param[1]",
        "test_calc.py::test_double_param[2]",
        "test_calc.py::test_double_zero",
        "test_calc.py::test_twice[2]",
    ]


def test_a_discovery_stopped_by_its_time_limit_says_so(tmp_path, monkeypatch):
    """What the traced run did not reach is unknown, and the heal says so (issue 22: a
    26,854-test suite around one function)."""
    from heal_ls.testing import coverage_run as discovery

    root = _project(tmp_path)
    (root / "tests" / "test_slow.py").write_text(
        "import time\nfrom pkg.rules import match\n\n"
        "def test_slow():\n    time.sleep(60)\n    assert match(['push'])\n"
    )
    monkeypatch.setattr(discovery, "_limit", lambda options: 10.0)
    found = asyncio.run(coverage_run(str(root), suspect_paths=[str(root / "pkg" / "rules.py")]))
    assert found.limit == 10.0
    passed = [t.nodeid for t in found.passing()]
    assert (
        "tests/test_rules.py::test_push" in passed and "tests/test_slow.py::test_slow" not in passed
    )
