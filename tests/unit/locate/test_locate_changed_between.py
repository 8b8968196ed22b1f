"""locate(): the act between a check that held and the same check failing (class S): the
def of ours the test called between the two comes first."""

import ast
from textwrap import dedent

import pytest
from heal_ls.locate import locate
from heal_ls.locate.between import acts_between_checks
from heal_ls.models import Failure, Frame, RunResult
from heal_ls.models import TestOutcome as Outcome

LOOP = """\
_current = None


def get_loop():
    return _current


def set_loop(loop):
    global _current
    _current = loop


class Poller:
    def close(self):
        self.closed = True


class Hub:
    def __init__(self):
        self.poller = Poller()

    def close(self):
        self.poller.close()
"""


@pytest.fixture
def ws(tmp_path):
    (tmp_path / "loop.py").write_text(LOOP)
    (tmp_path / "tests").mkdir()
    return tmp_path


def key(ws, needle: str) -> str:
    line = next(i for i, text in enumerate(LOOP.splitlines(), 1) if needle in text)
    return f"{ws / 'loop.py'}:{line}"


def located_in(ws, source: str, needle: str = "assert get_loop() is None"):
    """Locate the failure of tests/test_loop.py::test_loop at the line holding `needle`,
    having run every def of loop.py; a passing test ran all but `set_loop`, so the spectrum
    alone puts `set_loop` first."""
    text = dedent(source)
    (ws / "tests" / "test_loop.py").write_text(text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if needle in t)
    closes = [f"{ws / 'loop.py'}:{n}" for n in close_lines()]
    made = [key(ws, "def get_loop"), key(ws, "def __init__"), *closes]
    covered = [*made, key(ws, "def set_loop")]
    nodeid = "tests/test_loop.py::test_loop"
    failure = Failure(
        id=nodeid,
        test=nodeid,
        exc_type="AssertionError",
        message="assert <loop.Hub object at 0x7f00> is None",
        frames=[Frame(str(ws / "tests" / "test_loop.py"), line, "test_loop")],
        covered=covered,
    )
    passing = Outcome("tests/test_other.py::test_hub", "passed", covered=made)
    run = RunResult(root=str(ws), failures=[failure], tests=[passing])
    return locate(failure, str(ws), run)


def close_lines() -> list[int]:
    """The def lines of Poller.close and Hub.close, in that order."""
    return [i for i, text in enumerate(LOOP.splitlines(), 1) if "def close" in text]


def names(located) -> list[str]:
    return [s.qualname for s in located.suspects]


def test_the_act_between_a_held_check_and_the_same_check_failing_comes_first(ws):
    located = located_in(
        ws,
        """\
        from loop import Hub, get_loop, set_loop


        def test_loop():
            hub = Hub()
            set_loop(hub)
            assert get_loop() is hub
            hub.close()
            assert get_loop() is None
        """,
    )
    # hub.close() runs Hub.close, not Poller.close (a def of the same name): hub = Hub()
    assert names(located)[0] == "Hub.close"
    assert located.suspects[0].reason.startswith("called between the check at line 7, which held")
    assert "Poller.close" not in names(located)[:2]


def test_without_a_held_check_of_the_same_expression_nothing_is_lifted(ws):
    located = located_in(
        ws,
        """\
        from loop import Hub, get_loop, set_loop


        def test_loop():
            hub = Hub()
            set_loop(hub)
            assert hub is not None
            hub.close()
            assert get_loop() is None
        """,
    )
    assert not any(s.reason.startswith("called between the check") for s in located.suspects)


def acts(source: str, needle: str) -> tuple[int, list[list[str]]]:
    text = dedent(source)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if needle in t)
    held, found = acts_between_checks(ast.parse(text), line)
    return held, [act.names for act in found]


def test_checks_between_are_not_acts_and_the_nearest_act_is_first():
    held, found = acts(
        """\
        def test_it(self):
            w = make()
            self.assertEqual(len(w.items), 0)
            w.add(1)
            w.flush()
            self.assertTrue(w.ready)
            self.assertEqual(len(w.items), 1)
        """,
        "len(w.items), 1",
    )
    assert held == 3
    assert found == [["flush"], ["add"]]


def test_a_check_in_a_branch_or_a_closed_with_block_may_not_have_held():
    branch = """\
        def test_it(flag):
            w = make()
            if flag:
                assert w.size() == 0
            w.add(1)
            assert w.size() == 1
        """
    closed = """\
        def test_it():
            with opened() as w:
                assert w.size() == 0
            w.add(1)
            assert w.size() == 1
        """
    inside = """\
        def test_it():
            with opened() as w:
                assert w.size() == 0
                w.add(1)
                assert w.size() == 1
        """
    assert acts(branch, "== 1") == (0, [])
    assert acts(closed, "== 1") == (0, [])
    assert acts(inside, "== 1") == (3, [["add"]])


def test_a_value_made_only_to_be_stored_elsewhere_is_no_act():
    stored = """\
        def test_it():
            assert arity(Add) is None
            registry[Add] = expand((0, make()))
            other = Writer()
            assert arity(Add) == 1
        """
    rebound = """\
        def test_it():
            doc = parse("a")
            assert len(doc.params) == 0
            doc = parse("b")
            assert len(doc.params) == 1
        """
    assert acts(stored, "== 1") == (2, [])
    assert acts(rebound, "== 1") == (3, [["parse"]])
