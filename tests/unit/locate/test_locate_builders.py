"""locate(): ranked by the spectrum alone, a constructor or a renderer weighs less than code
that decides (issue 22, ranking): in the tests that report a symptom the report's own
`__init__` and `__str__` run too, often in fewer passing tests than the decision that made it."""

from heal_ls.locate import locate
from heal_ls.models import Failure, Frame, RunResult
from heal_ls.models import TestOutcome as Outcome

from tests.helpers.locate import line_of

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
