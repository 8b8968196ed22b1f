"""locate(): the test counted the warnings its code issued and got the wrong number (issue 22,
ranking): the warning belongs in a function the test ran that warns for other inputs, before
the call the test made and a handler only the failing test ran."""

from heal_ls import models
from heal_ls.locate import locate

from tests.helpers.locate import failing_test, keys_of, line_of, write_project

PICKLER = """\
import warnings


class Pickler:
    def _warn(self, obj):
        warnings.warn(f"{obj!r} was replaced with None")

    def flatten(self, obj):
        handler = HANDLERS.get(type(obj))
        if handler is not None:
            return handler(obj)
        if not hasattr(obj, "__dict__"):
            self._warn(obj)
            return None
        return dict(obj.__dict__)


def flatten_file(obj):
    return None


HANDLERS = {}


def encode(obj):
    return repr(Pickler().flatten(obj))
"""
TEST = """\
import io
import warnings

from pickler import HANDLERS, encode, flatten_file


def test_warnings():
    HANDLERS[io.StringIO] = flatten_file
    with warnings.catch_warnings(record=True) as w:
        encode(io.StringIO())
        assert len(w) == 1
"""


def ranked(tmp_path, test: str = TEST) -> list[str]:
    here, test_path = write_project(tmp_path, "pickler", PICKLER, test)
    (flatten,) = keys_of(here, PICKLER, ("flatten",))
    handled = line_of(PICKLER, "return handler(obj)")
    common = [*keys_of(here, PICKLER, ("encode",)), flatten]
    chosen = keys_of(here, PICKLER, ("flatten_file",))  # only the failing test's input has one
    nodeid = "tests/test_pickler.py::test_warnings"
    line = line_of(test, "assert ")
    error = ("AssertionError", "assert 0 == 1")
    failure = failing_test(test_path, nodeid, line, error, [], [*common, *chosen])
    failure.blocks = {here: [handled]}
    passing = [
        models.TestOutcome(
            f"tests/test_other.py::test_{n}",
            "passed",
            covered=[*common, *keys_of(here, PICKLER, ("_warn",))],
            blocks={here: [line_of(PICKLER, "if not hasattr")]},
        )
        for n in range(4)
    ]
    run = models.RunResult(str(tmp_path), passed=4, failed=1, failures=[failure], tests=passing)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_the_function_that_warns_for_other_inputs_comes_first(tmp_path):
    assert ranked(tmp_path)[0] == "Pickler.flatten"


def test_a_check_of_another_value_in_the_block_is_about_that_value(tmp_path):
    test = TEST.replace("assert len(w) == 1", 'assert encode(io.StringIO()) == "{}"')
    assert ranked(tmp_path, test)[0] != "Pickler.flatten"


def test_pytest_warns_that_saw_no_warning_is_a_missing_warning(tmp_path):
    test = TEST.replace(
        "    with warnings.catch_warnings(record=True) as w:\n",
        "    with pytest.warns(UserWarning):\n",
    ).replace("        assert len(w) == 1\n", "")
    test = "import pytest\n" + test
    here, test_path = write_project(tmp_path, "pickler", PICKLER, test)
    common = keys_of(here, PICKLER, ("encode", "flatten", "flatten_file"))
    nodeid = "tests/test_pickler.py::test_warnings"
    error = ("Failed", "DID NOT WARN. No warnings of type (<class 'UserWarning'>,) were emitted.")
    failure = failing_test(test_path, nodeid, line_of(test, "pytest.warns"), error, [], common)
    located = locate(failure, str(tmp_path), None)
    assert located.suspects[0].qualname == "Pickler.flatten"
