"""locate(): ranked by the spectrum alone, a constructor or a renderer weighs less than code
that decides (issue 22, ranking): in the tests that report a symptom the report's own
`__init__` and `__str__` run too, often in fewer passing tests than the decision that made it;
nor does a block of one pass the call the failing line checks (class S)."""

from heal_ls.locate import locate
from heal_ls.models import Failure, Frame, RunResult
from heal_ls.models import TestOutcome as Outcome

from tests.helpers.locate import failing_test, keys_of, line_of, write_project

CHECKER = """\
class Unused:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"{self.name} unused"


def check(names, used):
    return [Unused(n) for n in names if n not in used]
"""
TEST = """\
import checker


def test_a_quoted_name_is_used():
    assert checker.LAST == []
"""


def ranked(tmp_path) -> list[str]:
    """`check` ran in the failing test and two passing ones, `Unused.__init__` and `__str__`
    in the failing test and one passing one (Ochiai 0.58 against 0.71)."""
    (tmp_path / "checker.py").write_text(CHECKER)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_checker.py").write_text(TEST)
    here = str(tmp_path / "checker.py")
    init, text, check = (f"{here}:{line_of(CHECKER, d)}" for d in ("__init__", "__str__", "check"))
    test_path = str(tmp_path / "tests" / "test_checker.py")
    nodeid = "tests/test_checker.py::test_a_quoted_name_is_used"
    failure = Failure(
        id=nodeid,
        test=nodeid,
        exc_type="AssertionError",
        message="assert [<Unused>] == []",
        frames=[Frame(test_path, 5, "test_a_quoted_name_is_used")],
        test_path=test_path,
        test_line=5,
        covered=[init, text, check],
    )
    passing = [
        Outcome("tests/test_checker.py::test_unused", "passed", covered=[init, text, check]),
        Outcome("tests/test_checker.py::test_used", "passed", covered=[check]),
    ]
    run = RunResult(str(tmp_path), 2, 1, failures=[failure], tests=passing)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_the_decision_outranks_the_reports_constructor_and_renderer(tmp_path):
    assert ranked(tmp_path) == ["check", "Unused.__init__", "Unused.__str__"]


UNION = """\
class Union:
    def __init__(self, parts):
        self.parts = parts

    def __str__(self):
        if len(self.parts) > 1:
            return " or ".join(self.parts)
        return self.parts[0]

    def exclude(self, name):
        return Union([p for p in self.parts if p == name])
"""
UNION_TEST = """\
from union import Union


def test_exclude():
    assert str(Union(["a", "b"]).exclude("b")) == "a"
"""


def test_a_renderers_block_does_not_pass_the_call_the_failing_line_checks(tmp_path):
    """`__str__` rendered one part (a block one passing test ran too: Ochiai 0.71) of the
    union `exclude`, called on the failing line, returned (its body ran in every test: 0.45):
    the renderer's block only says which value was built; `exclude` made it."""
    here, test_path = write_project(tmp_path, "union", UNION, UNION_TEST)
    keys = keys_of(here, UNION, ("__init__", "__str__", "exclude"))
    single, joined = line_of(UNION, "return self.parts[0]"), line_of(UNION, 'return " or "')
    body = line_of(UNION, "return Union(")
    nodeid = "tests/test_union.py::test_exclude"
    error = ("AssertionError", "assert 'b' == 'a'")
    failure = failing_test(test_path, nodeid, 5, error, [], keys, {here: [single, body]})
    passing = [
        Outcome(f"t::test_{n}", "passed", covered=keys, blocks={here: [joined, body]})
        for n in range(3)
    ]
    passing.append(Outcome("t::test_one", "passed", covered=keys, blocks={here: [single, body]}))
    run = RunResult(str(tmp_path), 4, 1, failures=[failure], tests=passing)
    located = locate(failure, str(tmp_path), run)
    assert located.suspects[0].qualname == "Union.exclude"
    assert "called on the failing line" in located.suspects[0].reason
    assert "Union.__str__" in [s.qualname for s in located.suspects[1:]]
