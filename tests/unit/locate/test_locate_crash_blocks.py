"""locate() after a crash, with block evidence (issue 22, ranking): a function whose block every
failing test ran and no passing one did comes right after the raise site, before the callers
that only led there (a writer whose output the reader refuses)."""

from heal_ls.locate import locate
from heal_ls.models import Frame, RunResult
from heal_ls.models import TestOutcome as Outcome

from tests.helpers.locate import failing_test, keys_of, line_of, write_project

STORE = """\
def dump(value):
    if value is None:
        return "None"
    return str(value)


def parse(text):
    return float(text)


def load(text):
    return parse(text)
"""
TEST = """\
from store import dump, load


def test_round_trip_of_nothing():
    assert load(dump(None)) is None
"""


def crash(tmp_path, passing_ran_the_branch=False):
    here, test_path = write_project(tmp_path, "store", STORE, TEST)
    keys = keys_of(here, STORE, ("dump", "parse", "load"))
    branch = {here: [line_of(STORE, 'return "None"')]}
    crash_frames = [
        Frame(here, line_of(STORE, "return parse(text)"), "load"),
        Frame(here, line_of(STORE, "return float(text)"), "parse"),
    ]
    nodeid = "tests/test_store.py::test_round_trip_of_nothing"
    error = ("ValueError", "could not convert string to float: 'None'")
    failure = failing_test(test_path, nodeid, 5, error, crash_frames, keys, branch)
    ran = branch if passing_ran_the_branch else {here: [line_of(STORE, "return str(value)")]}
    passing = [Outcome(f"t::test_{n}", "passed", covered=keys, blocks=ran) for n in range(3)]
    return failure, RunResult(str(tmp_path), 3, 1, failures=[failure], tests=passing)


def test_a_block_only_the_failing_tests_ran_comes_right_after_the_raise_site(tmp_path):
    failure, run = crash(tmp_path)
    located = locate(failure, str(tmp_path), run)
    assert [s.qualname for s in located.suspects] == ["parse", "dump", "load"]
    assert located.suspects[1].focus_line == line_of(STORE, 'return "None"')
    assert "ran in every failing test and no passing one" in located.suspects[1].reason


def test_a_block_passing_tests_ran_too_keeps_the_call_path_first(tmp_path):
    failure, run = crash(tmp_path, passing_ran_the_branch=True)
    located = locate(failure, str(tmp_path), run)
    assert [s.qualname for s in located.suspects] == ["parse", "load", "dump"]
