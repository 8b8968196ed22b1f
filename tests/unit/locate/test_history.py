"""History as evidence: the impact map keeps the code of the last green run, and a function
changed since then outranks an otherwise equal one.

Real files on disk, runs written into a real map as the plugin reports them, then `locate`."""

from __future__ import annotations

import os
import time

import pytest
from heal_ls.impact.store import ImpactMap
from heal_ls.locate import locate
from heal_ls.locate.history import CHANGED_REASON, with_history
from heal_ls.models import Failure, Frame, RunResult
from heal_ls.models import TestOutcome as Outcome

MOD = "def first(x):\n    return x + 1\n\n\ndef second(x):\n    return x * 2\n"
TESTS = """\
from pkg.mod import first, second


def test_both():
    assert first(1) + second(2) == 0


def test_other():
    pass
"""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mod.py").write_text(MOD)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_mod.py").write_text(TESTS)
    past = time.time() - 10  # saved before the runs started
    for path in tmp_path.rglob("*.py"):
        os.utime(path, (past, past))
    return tmp_path


def keys(root) -> list[str]:
    return [f"{root / 'pkg' / 'mod.py'}:1", f"{root / 'pkg' / 'mod.py'}:5"]


def green_run(root) -> RunResult:
    tests = [
        Outcome("tests/test_mod.py::test_both", "passed", 0.1, covered=keys(root)),
        Outcome("tests/test_mod.py::test_other", "passed", 0.1),
    ]
    return RunResult(root=str(root), passed=2, tests=tests, seconds=1.0, complete=True)


def failing_run(root) -> RunResult:
    test_path = str(root / "tests" / "test_mod.py")
    failure = Failure(
        id="tests/test_mod.py::test_both",
        exc_type="AssertionError",
        message="assert (2 + 4) == 0",
        frames=[Frame(test_path, 5, "test_both")],
        test="tests/test_mod.py::test_both",
        test_path=test_path,
        test_line=5,
        covered=keys(root),
    )
    tests = [
        Outcome(failure.id, "failed", 0.1, covered=keys(root)),
        Outcome("tests/test_mod.py::test_other", "passed", 0.1),
    ]
    return RunResult(root=str(root), passed=1, failed=1, failures=[failure], tests=tests)


def edit(path, old, new):
    path.write_text(path.read_text().replace(old, new))
    later = time.time() + 5
    os.utime(path, (later, later))


def ranked(root, run) -> list[tuple[str, str]]:
    found = locate(run.failures[0], str(root), run).suspects
    return [(s.qualname, s.reason) for s in found]


def test_a_function_changed_since_green_outranks_an_equal_one(project):
    with ImpactMap.open(str(project)) as impact:
        impact.record(green_run(project), complete=["tests/test_mod.py"])
    before = ranked(project, with_history(failing_run(project), str(project)))
    assert [name for name, _ in before] == ["first", "second"]  # equal evidence: source order
    assert all(CHANGED_REASON not in reason for _, reason in before)

    edit(project / "pkg" / "mod.py", "return x * 2", "return x * 3")
    run = with_history(failing_run(project), str(project))
    assert run.changed_since_green == [f"{project / 'pkg' / 'mod.py'}:5"]
    after = ranked(project, run)
    assert [name for name, _ in after] == ["second", "first"]
    assert CHANGED_REASON in after[0][1] and CHANGED_REASON not in after[1][1]


def test_only_a_green_run_is_remembered(project):
    with ImpactMap.open(str(project)) as impact:
        red = failing_run(project)
        red.complete = True
        impact.record(red, complete=["tests/test_mod.py"])
    edit(project / "pkg" / "mod.py", "return x * 2", "return x * 3")
    assert with_history(failing_run(project), str(project)).changed_since_green == []


def test_a_function_new_since_green_counts_as_changed(project):
    with ImpactMap.open(str(project)) as impact:
        impact.record(green_run(project), complete=["tests/test_mod.py"])
    edit(project / "pkg" / "mod.py", "def second", "def third(x):\n    return x\n\n\ndef second")
    run = failing_run(project)
    run.failures[0].covered = [f"{project / 'pkg' / 'mod.py'}:5"]  # `third` now
    assert with_history(run, str(project)).changed_since_green == run.failures[0].covered
