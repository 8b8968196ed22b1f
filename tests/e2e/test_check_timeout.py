"""`heal-ls check` with a per-test timeout that fires where the test is not running its own
code: in a report hook of the user's conftest, or in a hypothesis test, which takes pytest's
`Failed` for a failing example. The run goes on and the test is reported as timed out, unless
its call had ended in time: then its own outcome stands."""

import pytest
from helpers.cli import heal_check, write

pytestmark = pytest.mark.e2e

TIMEOUT = "1"

# The user's report hook outlasts the timeout after a test that passed: an interrupt there lands
# in pytest's own code between the test's phases, where nothing catches it (pytest's
# INTERNALERROR, exit 3, ended the whole session: pydot's runs, whose failures' reports parse
# big source files); the test's call had ended in time, so it passed. A fixture's slow teardown
# is a phase of the test: it is interrupted there.
HOOKED = {
    "conftest.py": """
        import time


        def pytest_runtest_makereport(item, call):
            if call.when == "call" and item.name == "test_reported_slowly":
                time.sleep(1.5)  # a screenshot, an upload: longer than the timeout
        """,
    "test_hooked.py": """
        import time

        import pytest


        @pytest.fixture
        def slow_to_close():
            yield 1
            time.sleep(30)


        def test_reported_slowly():
            assert 1 == 1


        def test_closes_slowly(slow_to_close):
            assert slow_to_close == 1


        def test_after():
            assert 1 + 1 == 3
        """,
}


def test_a_timeout_in_a_report_hook_or_a_teardown_reports_the_test_and_the_run_goes_on(
    tmp_path,
):
    write(tmp_path, HOOKED)
    done = heal_check("--short", "--test-timeout", TIMEOUT, tmp_path, cwd=tmp_path)
    assert "internal error" not in done.stdout + done.stderr, done.stdout + done.stderr
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert not any("test_reported_slowly" in line for line in lines), done.stdout
    assert any("test_hooked.py::test_closes_slowly timed out" in line for line in lines)
    assert any("test_hooked.py::test_after failed: AssertionError" in line for line in lines)
    assert "2 failed, 1 passed in " in done.stderr, done.stderr


# hypothesis reran a timed-out example to shrink it, each run as long as the first, until the
# plugin gave up on the test and ended the process (exit 70): h2's test_changing_max_frame_size
HYPOTHESIS = """
    import time

    from hypothesis import given, settings, strategies as st

    RUNS = {runs!r}


    @settings(deadline=None, database=None)
    @given(st.integers())
    def test_sleeps(n):
        with open(RUNS, "a") as runs:
            runs.write("run\\n")
        time.sleep(30)


    def test_after():
        assert 2 + 2 == 5
    """


def test_a_timed_out_hypothesis_test_stops_at_the_first_interrupt(tmp_path):
    runs = tmp_path / "runs.txt"
    write(tmp_path, {"test_property.py": HYPOTHESIS.format(runs=str(runs))})
    done = heal_check("--short", "--test-timeout", TIMEOUT, tmp_path, cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert any("test_property.py::test_sleeps timed out: Timeout" in line for line in lines)
    assert any("test_property.py::test_after failed: AssertionError" in line for line in lines)
    assert runs.read_text().splitlines() == ["run"]  # no shrinking run after the interrupt


# The test's own code failed in time; the user's report hook then outlasts the timeout (a
# screenshot, an upload), or never ends. Its outcome was decided when its call ended: the check
# reports its own assertion at its own line, not a timeout whose stack is the hook's.
REPORTED_LATE = {
    "conftest.py": """
        import time


        def pytest_runtest_makereport(item, call):
            if call.when == "call" and item.name.startswith("test_reported"):
                time.sleep(1.5 if item.name.endswith("slowly") else 60)
        """,
    "test_late.py": """
        def test_reported_slowly():
            total = 1 + 1
            assert total == 3


        def test_reported_never():
            word = "a" * 2
            assert word == "aaa"


        def test_after():
            assert 2 + 2 == 5
        """,
}


def test_a_failure_whose_report_outlasts_the_timeout_keeps_its_own_assertion(tmp_path):
    write(tmp_path, REPORTED_LATE)
    done = heal_check("--short", "--test-timeout", TIMEOUT, tmp_path, cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert not any("timed out" in line for line in lines), done.stdout
    for test, line in (("test_reported_slowly", 4), ("test_reported_never", 9)):
        shown = f"test_late.py:{line}:5: test_late.py::{test} failed: AssertionError"
        assert any(shown in row for row in lines), done.stdout
    assert any("test_late.py::test_after failed: AssertionError" in row for row in lines)
    assert "3 failed in " in done.stderr, done.stderr
