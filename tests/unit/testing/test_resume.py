"""A run of the whole suite or of exact ids that the test timeout ended at a test that would not
stop goes on past it (testing/resume.py): `check` and the editor's runs report the tests after
it, as plain pytest would."""

import asyncio

from heal_ls import diagnose
from heal_ls.models import Failure, RunResult, TestOutcome
from heal_ls.testing.agent import heal_protocol as wire
from heal_ls.testing.options import RunOptions
from heal_ls.testing.resume import counted, joined, reported_ids
from helpers.projects import write_files

# test_stubborn swallows the interrupt (as hypothesis does, rerunning a failing example to
# shrink it): the plugin gives up on it and ends the process; test_total and test_empty come after
STUBBORN = {
    "cart.py": """
        def total(prices):
            return sum(prices) + 1
        """,
    "test_cart.py": """
        import time

        from cart import total


        def test_one():
            assert total([]) == 1


        def test_stubborn():
            while True:
                try:
                    time.sleep(60)
                except BaseException:
                    pass


        def test_total():
            assert total([2, 3]) == 5


        def test_empty():
            assert total([0]) == 1
        """,
}
OPTIONS = RunOptions(test_timeout=1.0, run_timeout=120)


def test_check_reports_the_tests_after_one_that_would_not_stop(tmp_path):
    root = str(write_files(tmp_path, STUBBORN))
    run, located = asyncio.run(diagnose.diagnose(root, OPTIONS))
    assert [t.nodeid.split("::")[1] for t in run.tests] == [
        "test_one",
        "test_stubborn",
        "test_total",
        "test_empty",
    ]
    assert (run.passed, run.failed) == (2, 2)
    assert [f.exc_type for f, _ in located] == ["Timeout", "AssertionError"]


def test_a_run_of_exact_ids_reports_those_after_one_that_would_not_stop(tmp_path):
    root = str(write_files(tmp_path, STUBBORN))
    asked = ["test_cart.py::test_stubborn", "test_cart.py::test_total", "test_cart.py::test_empty"]
    run, located = asyncio.run(diagnose.diagnose(root, OPTIONS, tests=asked, whole_files=False))
    assert [t.nodeid for t in run.tests] == asked
    assert (run.passed, run.failed) == (1, 2)
    ((stuck, _), (failure, total)) = located
    assert (stuck.exc_type, failure.test) == ("Timeout", "test_cart.py::test_total")
    assert total.suspects[0].qualname == "total"


def test_joined_runs_add_up_and_count_a_collection_error_once():
    broken = Failure(id="test_b.py", exc_type="ImportError", message="no module x")
    first = RunResult(
        "/w",
        passed=1,
        failed=1,
        errors=1,
        seconds=2.0,
        tests=[TestOutcome("t.py::a", "passed"), TestOutcome("t.py::b", "failed")],
        failures=[broken, Failure(id="t.py::b", test="t.py::b", exc_type="Timeout", message="")],
        returncode=70,
    )
    rest = RunResult(
        "/w",
        failed=1,
        errors=1,
        seconds=1.5,
        tests=[TestOutcome("t.py::c", "failed")],
        failures=[
            Failure(id="test_b.py", exc_type="ImportError", message="no module x"),
            Failure(id="t.py::c", test="t.py::c", exc_type="AssertionError", message=""),
        ],
        returncode=1,
        complete=True,
    )
    both = joined(first, rest)
    assert (both.passed, both.failed, both.errors, both.seconds) == (1, 2, 1, 3.5)
    assert [f.id for f in both.failures] == ["test_b.py", "t.py::b", "t.py::c"]
    assert (both.returncode, both.complete) == (1, True)
    assert reported_ids(both) == ["t.py::a", "t.py::b", "t.py::c"]


def test_a_resumed_runs_progress_counts_the_tests_reported_before():
    rows: list = []
    show = counted(rows.append, 3)
    show(wire.Collected(2))
    show(wire.Start("t.py::c"))
    assert rows == [wire.Collected(5), wire.Start("t.py::c")]
    assert counted(None, 3) is None
