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


def loud(prefix):
    def say(text):
        shout(prefix + text)

    return say
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


def located_in(ws, name: str, source: str):
    """Locate the failure of test_<name>, whose last line is the failing check, having run
    every function of talk.py."""
    text = dedent(source)
    (ws / "tests" / f"test_{name}.py").write_text(text)
    covered = [key(ws, f"def {f}") for f in ("_stream", "shout", "say", "loud")]
    failure = failure_in(ws, name, len(text.splitlines()), covered)
    return locate(failure, str(ws), RunResult(root=str(ws), failures=[failure]))


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


def test_the_act_is_the_nearest_earlier_statement_calling_our_code(ws):
    located = located_in(
        ws,
        "two",
        """\
            from talk import loud, _stream


            def test_two(capsys):
                _stream(False)
                speak = loud("> ")
                speak("a")  # runs what loud returned
                captured = capsys.readouterr()
                assert captured.out == "b"
            """,
    )
    assert [s.qualname for s in located.suspects][:2] == ["loud.<locals>.say", "loud"]
    assert "called just before" not in located.suspects[2].reason


def crash(ws, exc_type: str, calls: list[tuple[str, str, str, str]]) -> Failure:
    """A crash raised in the test at line 5, through `calls` (path, text, line needle, def)."""
    frames = [Frame(str(ws / "tests" / "test_talk.py"), 5, "test_to_stdout")]
    frames += [Frame(path, line_of(text, needle), name) for path, text, needle, name in calls]
    nodeid = "tests/test_talk.py::test_to_stdout"
    return Failure(id=nodeid, exc_type=exc_type, message="bad value", frames=frames)


CHECKS = """\
def node_of(graph, n):
    if n not in graph:
        raise KeyError(f"the node {n} is not in the graph")
    return graph[n]


def first_node(graph):
    return node_of(graph, -1)
"""


@pytest.mark.parametrize(
    "raising, top",
    [
        ('raise KeyError(f"the node {n} is not in the graph")', "first_node"),
        ('raise KeyError("no such node")', "node_of"),
    ],
)
def test_a_def_that_refuses_its_argument_passes_the_blame_to_the_caller(ws, raising, top):
    """`node_of(graph, n)` raised naming the `n` it was given: its caller passed the wrong
    value. A raise that names no argument is its own def's decision."""
    text = CHECKS.replace('raise KeyError(f"the node {n} is not in the graph")', raising)
    (ws / "checks.py").write_text(text)
    checks = str(ws / "checks.py")
    failure = crash(ws, "KeyError", [(checks, text, "return node_of", "first_node")])
    failure.frames.append(Frame(checks, line_of(text, "raise KeyError"), "node_of"))
    located = locate(failure, str(ws))
    assert [s.qualname for s in located.suspects] == [top, *({"first_node", "node_of"} - {top})]
    if top == "first_node":
        assert located.suspects[0].reason == "passed node_of the 'n' it refused, raising"


def test_a_def_refusing_what_the_test_passed_down_unchanged_keeps_the_blame(ws):
    """`first_node(graph, n)` only handed `node_of` the `n` the test gave it: no caller chose
    the value, so the def that refused it comes first (it should take it: pyasn1's
    `asSeekableStream` refusing the memoryview `StreamingDecoder` passed on)."""
    text = CHECKS.replace("def first_node(graph):", "def first_node(graph, n):")
    text = text.replace("node_of(graph, -1)", "node_of(graph, n)")
    (ws / "checks.py").write_text(text)
    checks = str(ws / "checks.py")
    failure = crash(ws, "KeyError", [(checks, text, "return node_of", "first_node")])
    failure.frames.append(Frame(checks, line_of(text, "raise KeyError"), "node_of"))
    located = locate(failure, str(ws))
    assert [s.qualname for s in located.suspects] == ["node_of", "first_node"]
    assert located.suspects[0].reason == "raised here"


MEMO = """\
class Patterns:
    def __init__(self):
        self._made = {}

    def _build(self, strict):
        return "^x$" if strict else "x"

    def __call__(self, strict):
        if strict not in self._made:
            self._made[strict] = self._build(strict)
        return self._made[strict]


def unrelated():
    return 1
"""


def memo_ranking(ws, memo: str) -> list[str]:
    """The suspects of a failing test that ran `Patterns.__call__`, whose `_build` an earlier
    passing test ran (the failing one read its kept value back)."""
    (ws / "memo.py").write_text(memo)
    path = ws / "memo.py"
    # a def's key is its first decorator's line
    at = {name: f"{path}:{line_of(memo, name)}" for name in ("__init__", "_build", "__call__")}
    if "@functools" in memo:
        at["_build"] = f"{path}:{line_of(memo, '@functools')}"
    failure = failure_in(ws, "two", 8, [at["__init__"], at["__call__"]])
    earlier = Outcome("tests/test_two.py::test_one", "passed", covered=[*at.values()])
    run = RunResult(root=str(ws), failures=[failure], tests=[earlier])
    names = [s.qualname for s in locate(failure, str(ws), run).suspects]
    assert "Patterns._build" not in [s.qualname for s in locate(failure, str(ws)).suspects]
    return names


def test_a_callee_a_cache_kept_from_running_is_still_a_suspect(ws):
    """`__call__` stores what `_build` returns and never reads it back: no memo, so `_build`
    (ran in a passing test only) is listed after what ran; `unrelated` (never called) is not."""
    names = memo_ranking(ws, MEMO.replace("return self._made[strict]", "return strict"))
    assert names[-1] == "Patterns._build" and "unrelated" not in names


def test_a_memoized_callee_made_the_value_its_caller_returned(ws):
    """`__call__` keeps `_build`'s result and returns it from its memo: `_build` made the value
    the failing test got (an earlier test ran it), so it comes right before its caller (tied
    here with the constructor)."""
    assert memo_ranking(ws, MEMO)[0] == "Patterns._build"


def test_a_functools_cached_callee_made_the_value_its_caller_returned(ws):
    """`@functools.lru_cache` kept `_build`'s result from an earlier test: the same."""
    memo = MEMO.replace("    def _build", "    @functools.lru_cache\n    def _build")
    memo = "import functools\n\n\n" + memo.replace("return self._made[strict]", "return 0")
    assert memo_ranking(ws, memo)[0] == "Patterns._build"


CACHED = """\
import functools


class Patterns:
    @functools.lru_cache
    def _build(self, strict):
        return "^x$" if strict else "x"

    def __call__(self, strict, tail):
        if strict:
            pattern = self._build(strict)
        else:
            pattern = "x"
        if tail:
            return pattern + tail
        return pattern
"""


def cached_ranking(ws, failing: list[str], passing: list[str], source=CACHED) -> list[str]:
    """The suspects of a failing test that ran `Patterns.__call__` and the blocks starting at
    the `failing` statements, a passing test having run `_build` and the `passing` ones."""
    (ws / "cached.py").write_text(source)
    path = str(ws / "cached.py")
    lines = source.splitlines()

    def at(statement: str) -> int:
        return next(n for n, line in enumerate(lines, 1) if line.strip() == statement)

    built = "@functools.lru_cache" if "@functools" in source else "def _build(self, strict):"
    build, call = f"{path}:{at(built)}", f"{path}:{line_of(source, '__call__')}"
    failure = failure_in(ws, "two", 8, [call])
    failure.blocks = {path: sorted(at(s) for s in failing)}
    earlier = Outcome(
        "tests/test_two.py::test_one",
        "passed",
        covered=[build, call],
        blocks={path: sorted(at(s) for s in passing)},
    )
    run = RunResult(root=str(ws), failures=[failure], tests=[earlier])
    return [s.qualname for s in locate(failure, str(ws), run).suspects]


TAKEN, NOT_TAKEN = "pattern = self._build(strict)", 'pattern = "x"'
TAIL, PLAIN = "return pattern + tail", "return pattern"


def test_a_cached_callee_called_in_the_failing_tests_likeliest_block_made_its_value(ws):
    """The failing test alone took the branch that calls the cached `_build`: the value it
    got there was made by `_build` (in an earlier test), which comes first."""
    names = cached_ranking(ws, [TAKEN, "if tail:", PLAIN], [NOT_TAKEN, "if tail:", PLAIN])
    assert names[0] == "Patterns._build"


def test_a_cached_callee_called_in_a_branch_the_failing_test_did_not_take_made_nothing(ws):
    """The failing test did not take the branch that calls `_build`: no kept value of it was
    handed to the test, so `_build` is only listed last."""
    names = cached_ranking(ws, [NOT_TAKEN, "if tail:", TAIL], [TAKEN, "if tail:", PLAIN])
    assert names[0] == "Patterns.__call__" and names[-1] == "Patterns._build"


def test_a_cached_callee_called_where_passing_tests_ran_too_is_not_the_failing_difference(ws):
    """The failing test called `_build` where the passing one did too, and its caller's
    suspicion rests on the `tail` branch only it took: `_build`'s value is not what it did
    differently, so `_build` is not lifted over `__call__`."""
    names = cached_ranking(ws, [TAKEN, "if tail:", TAIL], [TAKEN, "if tail:", PLAIN])
    assert names[0] == "Patterns.__call__" and names[-1] == "Patterns._build"


KEPT = """\
class Patterns:
    def __init__(self):
        self._made = None

    def _build(self, strict):
        return "^x$" if strict else "x"

    def _connect(self, strict):
        return strict

    def __call__(self, strict):
        self._connect(strict)
        if self._made is None:
            self._made = self._build(strict)
        return self._made
"""
MADE, RETURNED = "self._made = self._build(strict)", "return self._made"


def test_a_memo_read_the_failing_test_never_reached_returned_nothing_kept(ws):
    """`_connect` raised before `__call__` read its memo: neither the `if`'s branch nor the
    return after it ran (kombu's `default_channel`: `_ensure_connection` raised before
    `self._default_channel`), so `_build`'s kept value was never handed on: listed last."""
    names = cached_ranking(ws, [], [MADE, RETURNED], KEPT)
    assert names[0] == "Patterns.__call__" and names[-1] == "Patterns._build"


def test_a_memo_read_past_its_test_returned_the_kept_value(ws):
    """The same caller, run past its memo's test to the return: `_build` made what it
    returned (an earlier test ran it), so it comes first."""
    names = cached_ranking(ws, [RETURNED], [MADE, RETURNED], KEPT)
    assert names[0] == "Patterns._build"


OWN = KEPT.replace(
    "        if self._made is None:",
    "        if strict:\n            self._made = strict\n            return self._made\n"
    "        if self._made is None:",
)


def test_a_memo_read_right_after_the_callers_own_store_returned_that_store(ws):
    """`__call__` stored `strict` in its memo's place and returned it from there in the same
    block (nox's `self._resolved = cleaned_interpreter`): the value returned is the caller's
    own, not one `_build` made, so `_build` is listed last."""
    own = ["if strict:", "self._made = strict"]
    names = cached_ranking(ws, own, ["if self._made is None:", MADE, RETURNED], OWN)
    assert names[0] == "Patterns.__call__" and names[-1] == "Patterns._build"


NUMBERS = """\
LIMIT = "x"


def to_number(text):
    return float(text)


def bucket(value):
    return int(value) // 10


def read(text):
    value = to_number(text)
    return bucket(value)


def main(text):
    return read(text)
"""


@pytest.mark.parametrize("raising, hops", [("int(value)", True), ("int(LIMIT)", False)])
def test_a_crash_on_an_argument_leads_to_what_the_caller_computed_to_pass_it(ws, raising, hops):
    """`bucket(value)` crashed on its argument: `to_number`, which computed it in the caller,
    comes right after the call path's first two frames; a crash on anything else does not."""
    text = NUMBERS.replace("int(value)", raising)
    (ws / "numbers.py").write_text(text)
    path = str(ws / "numbers.py")
    calls = [("return read(", "main"), ("return bucket(", "read"), ("return int(", "bucket")]
    failure = crash(ws, "ValueError", [(path, text, needle, name) for needle, name in calls])
    failure.covered = [f"{path}:{line_of(text, f'def {n}')}" for n in ("main", "read", "bucket")]
    failure.covered.append(f"{path}:{line_of(text, 'def to_number')}")
    names = [s.qualname for s in locate(failure, str(ws)).suspects]
    assert (names.index("to_number") == 2) is hops


def test_a_checked_object_leads_to_the_call_it_was_handed_to(ws):
    """`assert log == [...]` reads a list the test handed to `shout`: that call comes before
    the nearer `speak(...)` act."""
    located = located_in(
        ws,
        "three",
        """\
            from talk import loud, shout


            def test_three():
                log = []
                shout("x", err=log)
                speak = loud("> ")
                speak("a")
                assert log == ["X"]
            """,
    )
    top = located.suspects[0]
    assert top.qualname == "shout"
    assert top.reason == "was handed the object the failing check tests/test_three.py:9 reads"
