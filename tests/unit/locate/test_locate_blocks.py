"""locate(): block-level spectrum evidence (issue 22, ranking). A function is as suspect as its
most suspicious block (Ochiai over the tests whose blocks were recorded); a function whose block
is more specific to the failing tests than any block of the functions the failing line calls
ranks above them."""

from heal_ls.locate import locate, ranker
from heal_ls.locate.affinity import NAME_BONUS
from heal_ls.locate.spectrum import block_ochiai
from heal_ls.models import Frame, RunResult
from heal_ls.models import TestOutcome as Outcome
from helpers.locate import failing_test, line_of

FMT = """\
def render(text, strip):
    tokens = split(text)
    if strip:
        tokens = drop_comments(tokens)
    return " ".join(tokens)


def split(text):
    return text.split()


def drop_comments(tokens):
    out = []
    for token in tokens:
        if token.startswith("--"):
            break
        out.append(token)
    return out
"""
TEST = """\
from fmt import render


def test_comment_in_the_middle():
    assert render("a -- b c", True) == "a c"
"""


def setup(tmp_path):
    (tmp_path / "fmt.py").write_text(FMT)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_fmt.py").write_text(TEST)
    here = str(tmp_path / "fmt.py")
    keys = [
        f"{here}:{line_of(FMT, f'def {name}(')}" for name in ("render", "split", "drop_comments")
    ]
    return here, keys


def block(here: str, needle: str) -> int:
    return line_of(FMT, needle)


def run_with(tmp_path, recorded=True):
    """The failing test ran `break` in drop_comments; four passing tests ran render, split and
    drop_comments (its loop), never that branch."""
    here, keys = setup(tmp_path)
    loop = [block(here, "if token.startswith"), block(here, "return out")]
    failing_blocks = {
        here: [
            block(here, "tokens = drop_comments"),
            block(here, 'return " "'),
            *loop[:1],
            block(here, "break"),
            loop[1],
        ]
    }
    passing_blocks = {
        here: [
            block(here, "tokens = drop_comments"),
            block(here, 'return " "'),
            loop[0],
            block(here, "out.append"),
            loop[1],
        ]
    }
    test_path = str(tmp_path / "tests" / "test_fmt.py")
    error = ("AssertionError", "assert 'a' == 'a c'")
    failure = failing_test(
        test_path,
        "tests/test_fmt.py::test_comment_in_the_middle",
        5,
        error,
        [],
        keys,
        failing_blocks if recorded else None,
    )
    passing = [
        Outcome(
            f"tests/test_fmt.py::test_{n}",
            "passed",
            covered=keys,
            blocks=passing_blocks if recorded else None,
        )
        for n in range(4)
    ]
    return failure, RunResult(str(tmp_path), passed=4, failed=1, failures=[failure], tests=passing)


def test_a_block_only_the_failing_test_ran_ranks_its_function_above_the_called_one(tmp_path):
    failure, run = run_with(tmp_path)
    located = locate(failure, str(tmp_path), run)
    assert [s.qualname for s in located.suspects][:2] == ["drop_comments", "render"]
    first = located.suspects[0]
    assert f"block at line {line_of(FMT, 'break')}" in first.reason
    assert first.focus_line == line_of(FMT, "break")


def test_without_recorded_blocks_the_called_function_stays_first(tmp_path):
    failure, run = run_with(tmp_path, recorded=False)
    located = locate(failure, str(tmp_path), run)
    assert located.suspects[0].qualname == "render"


def test_no_block_more_specific_than_the_called_functions_keeps_them_first(tmp_path):
    failure, run = run_with(tmp_path)
    for test in run.tests:  # the passing tests ran `break` too: no block is failing-specific
        test.blocks = {
            path: sorted({*lines, line_of(FMT, "break")}) for path, lines in test.blocks.items()
        }
    located = locate(failure, str(tmp_path), run)
    assert located.suspects[0].qualname == "render"


def test_block_ochiai_counts_only_tests_whose_blocks_were_recorded(tmp_path):
    failure, run = run_with(tmp_path)
    here = str(tmp_path / "fmt.py")
    brk = f"{here}:{line_of(FMT, 'break')}:b"
    assert block_ochiai(failure, run)[brk] == 1.0
    entry = f"{here}:{line_of(FMT, 'def render(')}"
    assert block_ochiai(failure, run)[entry] == 1 / (5**0.5)  # a def's entry: its own key
    run.tests[0].blocks = None  # a borrowed passing test: its blocks unknown, not counted
    assert block_ochiai(failure, run)[entry] == 1 / (4**0.5)
    failure.blocks = None
    assert block_ochiai(failure, run) == {}


PIPE = """\
class Tokens:
    def __init__(self, text, strict=False):
        if strict:
            text = text.strip()
        self.items = text.split()


def drop_comments(tokens):
    out = []
    for token in tokens.items:
        if token.startswith("--"):
            break
        out.append(token)
    return out


def join(words):
    return " ".join(words)
"""
PIPE_TEST = """\
from pipe import Tokens, drop_comments, join


def test_comment():
    assert join(drop_comments(Tokens("a -- b c", True))) == "a c"
"""


def pipe_run(tmp_path, specific: str):
    """The failing line calls Tokens, drop_comments and join; the block `specific` ran only in
    the failing test, every other block also in four passing tests."""
    (tmp_path / "pipe.py").write_text(PIPE)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_pipe.py").write_text(PIPE_TEST)
    here = str(tmp_path / "pipe.py")
    keys = [f"{here}:{line_of(PIPE, n)}" for n in ("def __init__", "def drop_comments", "def join")]
    shared = [line_of(PIPE, n) for n in ("self.items =", "if token.startswith", "return out")]
    failing = {here: sorted([*shared, line_of(PIPE, specific)])}
    test_path = str(tmp_path / "tests" / "test_pipe.py")
    error = ("AssertionError", "assert 'a' == 'a c'")
    failure = failing_test(
        test_path, "tests/test_pipe.py::test_comment", 5, error, [], keys, failing
    )
    ran = {here: sorted([*shared, line_of(PIPE, "out.append")])}
    passing = [Outcome(f"t::{n}", "passed", covered=keys, blocks=ran) for n in range(4)]
    return failure, RunResult(str(tmp_path), passed=4, failed=1, failures=[failure], tests=passing)


def test_a_call_on_the_failing_line_whose_block_the_others_never_took_ranks_first(tmp_path):
    failure, run = pipe_run(tmp_path, "break")
    located = locate(failure, str(tmp_path), run)
    assert located.suspects[0].qualname == "drop_comments"
    assert "block at line" in located.suspects[0].reason


def test_a_constructor_on_the_failing_line_is_not_raised_by_its_own_block(tmp_path):
    # Tokens(..., True) took its `strict` branch only here: the object was built for this
    # input; what was done to it (drop_comments, join: the nearest value first) stays first.
    failure, run = pipe_run(tmp_path, "text = text.strip()")
    located = locate(failure, str(tmp_path), run)
    assert located.suspects[0].qualname != "Tokens.__init__"


def test_after_a_crash_a_function_the_test_ran_is_scored_by_its_likeliest_block(tmp_path):
    failure, run = run_with(tmp_path)
    here = str(tmp_path / "fmt.py")
    failure.exc_type, failure.message = "TypeError", "boom"
    failure.frames.append(Frame(here, line_of(FMT, "tokens = split(text)"), "render"))
    first = run.tests[0]  # one passing test ran `break` too (the tests share one dict)
    first.blocks = {here: [*first.blocks[here], line_of(FMT, "break")]}
    located = locate(failure, str(tmp_path), run)
    assert located.suspects[0].qualname == "render"  # raised here
    (dropped,) = [s for s in located.suspects if s.qualname == "drop_comments"]
    assert f"Ochiai 0.71, its block at line {line_of(FMT, 'break')}" in dropped.reason
    # was 0.5 x its entry's Ochiai 0.45: it ran in every test (test_comment_... names it, too)
    assert round(dropped.score - NAME_BONUS, 9) == round(0.5 / 2**0.5, 9)


DECORATED = """\
import functools


def render(text):
    return shout(text)


@functools.lru_cache(maxsize=None)
def shout(text):
    return text.upper()
"""


def test_a_decorated_functions_entry_block_points_at_its_def_line(tmp_path):
    """A function's entry block is keyed by its first line, the decorator's (co_firstlineno):
    the suspect it makes points at the `def` line, not at the decorator."""
    (tmp_path / "fmt.py").write_text(DECORATED)
    here, test_path = str(tmp_path / "fmt.py"), str(tmp_path / "test_fmt.py")
    (tmp_path / "test_fmt.py").write_text(
        "from fmt import render\n\n\ndef test_a():\n    assert render('a') == 'a'\n"
    )
    render, shout = (
        f"{here}:{line_of(DECORATED, 'def render')}",
        f"{here}:{line_of(DECORATED, '@functools')}",
    )
    error = ("AssertionError", "assert 'A' == 'a'")
    failure = failing_test(test_path, "test_fmt.py::test_a", 5, error, [], [render, shout], {})
    passing = [
        Outcome(f"test_fmt.py::test_{n}", "passed", covered=[render], blocks={}) for n in range(4)
    ]
    run = RunResult(str(tmp_path), passed=4, failed=1, failures=[failure], tests=passing)
    first = locate(failure, str(tmp_path), run).suspects[0]
    assert first.qualname == "shout"
    assert first.focus_line == line_of(DECORATED, "def shout")
    assert f"block at line {line_of(DECORATED, 'def shout')}" in first.reason


def test_of_equally_suspicious_blocks_the_first_in_the_function_names_it(tmp_path, monkeypatch):
    """`break` and `return out` ran in the failing test only (Ochiai 1.0 both): the reason and
    the focus name `break`, the first, whatever order the scores come in (a set's order, which
    the hash seed changes from one process to the next)."""
    failure, run = run_with(tmp_path)
    for test in run.tests:
        test.blocks = {path: lines[:-1] for path, lines in test.blocks.items()}  # no `return out`
    scored = block_ochiai(failure, run)
    assert scored[f"{tmp_path / 'fmt.py'}:{line_of(FMT, 'return out')}:b"] == 1.0
    for order in (list, reversed):
        monkeypatch.setattr(ranker, "block_ochiai", lambda f, r, o=order: dict(o(scored.items())))
        first = locate(failure, str(tmp_path), run).suspects[0]
        assert (first.qualname, first.focus_line) == ("drop_comments", line_of(FMT, "break"))
        assert f"block at line {line_of(FMT, 'break')}" in first.reason


def test_block_ochiai_is_computed_once_a_failure(tmp_path, monkeypatch):
    """Every reader of block Ochiai (the specific blocks, the covered functions, the memo's
    read-backs, the blocks only failing tests ran) shares one count over the recorded tests."""
    failure, run = run_with(tmp_path)
    calls = []

    def counted(f, r):
        calls.append(f.id)
        return block_ochiai(f, r)

    monkeypatch.setattr(ranker, "block_ochiai", counted)
    assert locate(failure, str(tmp_path), run).suspects[0].qualname == "drop_comments"
    assert calls == [failure.id]
