"""locate(): a def whose body does nothing (a docstring, `pass`, `...`) reached only by the
failing test was not wrong: the code that called it sent the run there (issue 22, class J:
pyte's `Screen.debug`, "by default a noop", first over the parser's fallback that called it for
an escape it should have consumed). It comes after the defs with a body; a stub the failing line
calls itself keeps its place (the fix may fill it in)."""

from heal_ls.locate import locate
from heal_ls.models import RunResult
from heal_ls.models import TestOutcome as Outcome

from tests.helpers.locate import failing_test, line_of, write_project

STREAM = """\
class Screen:
    def __init__(self):
        self.text = ""

    def draw(self, char):
        self.text += char

    def debug(self, *args):
        \"\"\"Endpoint for unrecognised sequences: by default a noop.\"\"\"


def feed(screen, data):
    escaped = False
    for char in data:
        if escaped:
            escaped = False
            screen.debug(char)
        elif char == "\\x1b":
            escaped = True
        else:
            screen.draw(char)
    return screen
"""
TEST = """\
from stream import Screen, feed


def test_charset_escape_is_consumed():
    assert feed(Screen(), "a\\x1b(Bb").text == "ab"


def test_the_hook_reports():
    assert Screen().debug("x") == "x"
"""


def ranked(tmp_path, test: str, message: str) -> list[str]:
    """The failing `test` ran every def; two passing tests ran all but `debug`."""
    here, test_path = write_project(tmp_path, "stream", STREAM, TEST)
    defs = ("__init__", "draw", "debug", "feed")
    keys = [f"{here}:{line_of(STREAM, f'def {name}(')}" for name in defs]
    nodeid = f"tests/test_stream.py::{test}"
    line = line_of(TEST, f"def {test}(") + 1
    failure = failing_test(test_path, nodeid, line, ("AssertionError", message), [], keys)
    passing = [
        Outcome(f"tests/test_stream.py::test_plain_{n}", "passed", covered=keys[:2] + keys[3:])
        for n in range(2)
    ]
    run = RunResult(str(tmp_path), 2, 1, failures=[failure], tests=passing)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_a_noop_the_run_reached_comes_after_the_defs_with_a_body(tmp_path):
    message = "AssertionError: assert 'aBb' == 'ab'"
    suspects = ranked(tmp_path, "test_charset_escape_is_consumed", message)
    assert suspects[0] == "feed"
    assert suspects[-1] == "Screen.debug"


def test_a_noop_the_failing_line_calls_keeps_its_place(tmp_path):
    suspects = ranked(tmp_path, "test_the_hook_reports", "assert None == 'x'")
    assert suspects[0] == "Screen.debug"
