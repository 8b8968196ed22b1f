"""locate(): the test's own statement crashed on a value of the wrong kind (issue 22, ranking,
class A: the fault made a value and returned). Python raised on the value (`'int' object does
not support the context manager protocol` on `with attempt:`), so the function that made it is
wrong, before a function only the failing test ran because the test chose it as input."""

from heal_ls import models
from heal_ls.locate import locate

from tests.helpers.locate import failing_test, keys_of, write_project

LOOP = """\
class Attempt:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def keep_going(result):
    return result < 3


def attempts(retry=None):
    for number in range(3):
        yield number
"""
TEST = """\
from loop import attempts, keep_going


def test_retry_with_result():
    for attempt in attempts(retry=keep_going):
        with attempt:
            pass
"""


def ranked(tmp_path, error: tuple[str, str], test: str = TEST) -> list[str]:
    here, test_path = write_project(tmp_path, "loop", LOOP, test)
    shared = keys_of(here, LOOP, ("attempts", "__enter__", "__exit__"))
    chosen = keys_of(here, LOOP, ("keep_going",))  # only the failing test passes it
    nodeid = "tests/test_loop.py::test_retry_with_result"
    failure = failing_test(test_path, nodeid, 6, error, [], [*shared, *chosen])
    passing = [
        models.TestOutcome(f"tests/test_loop.py::test_{n}", "passed", covered=shared)
        for n in range(4)
    ]
    run = models.RunResult(str(tmp_path), passed=4, failed=1, failures=[failure], tests=passing)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_the_maker_of_a_value_of_the_wrong_kind_comes_first(tmp_path):
    error = ("TypeError", "'int' object does not support the context manager protocol")
    assert ranked(tmp_path, error)[0] == "attempts"


def test_a_none_found_nothing_and_names_no_maker(tmp_path):
    """A None is a call's "not found", which a deeper function may have caused: no lift."""
    error = ("TypeError", "'NoneType' object does not support the context manager protocol")
    assert ranked(tmp_path, error)[0] == "keep_going"
