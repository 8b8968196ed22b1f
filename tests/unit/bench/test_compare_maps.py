"""benchmarks/compare_maps.py: two impact maps of one project hold the same rows, or say where
they differ (issue 22: a faster fill must write the same map)."""

import importlib.util
import os
import time
from pathlib import Path

import pytest
from heal_ls.impact.store import ImpactMap
from heal_ls.models import RunResult
from heal_ls.models import TestOutcome as Outcome

COMPARE = Path(__file__).parents[3] / "benchmarks" / "compare_maps.py"


@pytest.fixture(scope="module")
def compare_maps():
    spec = importlib.util.spec_from_file_location("compare_maps", COMPARE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def project(tmp_path):
    (tmp_path / "mod.py").write_text("def a():\n    return 1\n\n\ndef b():\n    return 2\n")
    (tmp_path / "test_mod.py").write_text("def test_a():\n    pass\n\n\ndef test_b():\n    pass\n")
    past = time.time() - 10  # saved before the runs started
    for path in tmp_path.glob("*.py"):
        os.utime(path, (past, past))
    return tmp_path


def fill(root: Path, cache: Path, monkeypatch, b_ran: list[int], b_outcome="passed") -> str:
    """A map in its own cache folder of one traced run: test_a ran a(), test_b the lines given."""
    monkeypatch.setenv("HEAL_LS_CACHE_DIR", str(cache))
    tests = [
        Outcome("test_mod.py::test_a", "passed", 0.1, covered=[f"{root}/mod.py:1"]),
        Outcome(
            "test_mod.py::test_b", b_outcome, 0.2, covered=[f"{root}/mod.py:{n}" for n in b_ran]
        ),
    ]
    with ImpactMap.open(str(root)) as impact:
        impact.record(RunResult(root=str(root), tests=tests, seconds=1.0))
        return str(impact.path)


def test_the_same_run_twice_is_the_same_map(compare_maps, project, tmp_path, monkeypatch, capsys):
    before = fill(project, tmp_path / "one", monkeypatch, [5])
    after = fill(project, tmp_path / "two", monkeypatch, [5])
    assert compare_maps.compare(before, after) == 0
    assert "rows that differ: 0 (0 of the tests above, 0 of others)" in capsys.readouterr().out


def test_a_row_more_in_a_test_of_the_same_outcome_is_a_difference(
    compare_maps, project, tmp_path, monkeypatch, capsys
):
    before = fill(project, tmp_path / "one", monkeypatch, [5])
    after = fill(project, tmp_path / "two", monkeypatch, [1, 5])
    assert compare_maps.compare(before, after) == 1
    out = capsys.readouterr().out
    assert "rows that differ: 1 (0 of the tests above, 1 of others)" in out
    assert "after  only: ('test_mod.py::test_b', 'mod.py', 'a', '')" in out


def test_rows_of_a_test_whose_outcome_differs_are_counted_apart(
    compare_maps, project, tmp_path, monkeypatch, capsys
):
    before = fill(project, tmp_path / "one", monkeypatch, [5])
    after = fill(project, tmp_path / "two", monkeypatch, [], b_outcome="failed")
    assert compare_maps.compare(before, after) == 0
    out = capsys.readouterr().out
    assert "tests whose record differs: 1 {('passed', 'failed'): 1}" in out
    assert "rows that differ: 1 (1 of the tests above, 0 of others)" in out
