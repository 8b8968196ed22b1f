"""locate(): rules that tie an assertion to the workspace call it checks when the failing line
calls nothing of ours (an act before the check) or a function raised on purpose."""

from textwrap import dedent

import pytest
from heal_ls.locate import locate
from heal_ls.models import Failure, Frame, RunResult
from heal_ls.models import TestOutcome as Outcome

TALK = """\
import sys


def _stream(err):
    return sys.stderr if err else sys.stdout


def shout(text, err=False):
    _stream(err).write(text.upper())
"""

TEST = """\
from talk import shout


def test_to_stdout(capsys):
    shout("hi")
    assert capsys.readouterr().out == "HI"


def test_to_stderr(capsys):
    shout("hi", err=True)
    out, err = capsys.readouterr()
    assert err == "HI"
"""


@pytest.fixture
def ws(tmp_path):
    (tmp_path / "talk.py").write_text(TALK)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_talk.py").write_text(TEST)
    return tmp_path


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def key(ws, needle):
    return f"{ws / 'talk.py'}:{line_of(TALK, needle)}"


def failure_in(ws, name: str, line: int, covered: list[str]) -> Failure:
    nodeid = f"tests/test_{name}.py::test_{name}"
    return Failure(
        id=nodeid,
        test=nodeid,
        exc_type="AssertionError",
        message="assert 'A' == 'b'",
        frames=[Frame(str(ws / "tests" / f"test_{name}.py"), line, f"test_{name}")],
        covered=covered,
    )


def test_a_check_of_captured_output_blames_the_call_just_before_it(ws):
    # shout ran in a passing test too, _stream(err=True) only here: by Ochiai alone the helper
    # wins; but the line checks what `shout(...)` printed, the act right before it.
    covered = [key(ws, "def shout"), key(ws, "def _stream")]
    failure = failure_in(ws, "to_stderr", 12, covered)
    failure.frames[0] = Frame(str(ws / "tests" / "test_talk.py"), 12, "test_to_stderr")
    passing = Outcome("tests/test_talk.py::test_to_stdout", "passed", covered=covered[:1])
    run = RunResult(root=str(ws), failures=[failure], tests=[passing])
    located = locate(failure, str(ws), run)
    top = located.suspects[0]
    assert top.qualname == "shout"
    assert top.reason.startswith("called just before the failing check tests/test_talk.py:12")


def test_the_act_is_the_nearest_earlier_statement_that_calls_our_code(ws):
    (ws / "tests" / "test_two.py").write_text(
        dedent(
            """\
            from talk import shout, _stream


            def test_two(capsys):
                _stream(False)
                shout("a")
                captured = capsys.readouterr()
                assert captured.out == "b"
            """
        )
    )
    covered = [key(ws, "def _stream"), key(ws, "def shout")]
    failure = failure_in(ws, "two", 8, covered)
    located = locate(failure, str(ws), RunResult(root=str(ws), failures=[failure]))
    assert [s.qualname for s in located.suspects][:1] == ["shout"]
    assert "called just before" not in located.suspects[1].reason
