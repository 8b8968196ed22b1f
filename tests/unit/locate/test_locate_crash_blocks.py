"""locate() after a crash, with block evidence (issue 22, ranking): a function whose block every
failing test ran and no passing one did comes right after the raise site, before the callers
that only led there (a writer whose output the reader refuses)."""

from heal_ls.locate import locate
from heal_ls.models import Failure, Frame, RunResult
from heal_ls.models import TestOutcome as Outcome

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


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def crash(tmp_path, passing_ran_the_branch=False):
    (tmp_path / "store.py").write_text(STORE)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_store.py").write_text(TEST)
    here, test_path = str(tmp_path / "store.py"), str(tmp_path / "tests" / "test_store.py")
    keys = [f"{here}:{line_of(STORE, f'def {name}(')}" for name in ("dump", "parse", "load")]
    branch = {here: [line_of(STORE, 'return "None"')]}
    failure = Failure(
        id="tests/test_store.py::test_round_trip_of_nothing",
        test="tests/test_store.py::test_round_trip_of_nothing",
        exc_type="ValueError",
        message="could not convert string to float: 'None'",
        frames=[
            Frame(test_path, 5, "test_round_trip_of_nothing"),
            Frame(here, line_of(STORE, "return parse(text)"), "load"),
            Frame(here, line_of(STORE, "return float(text)"), "parse"),
        ],
        test_path=test_path,
        test_line=5,
        covered=keys,
        blocks=branch,
    )
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
