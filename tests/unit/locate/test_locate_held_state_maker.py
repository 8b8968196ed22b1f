"""locate(): the first suspect's likeliest branch was decided by state kept on an object it
holds, one attribute hop away (`self.ptc.CRE_DATE3`, parsedatetime's calendar holding its
`Constants`; `inspector.previous_exception`, cleo's renderer holding an `Inspector`), and that
object's constructor computed the state (issue 22, ranking, class A: the maker of the state
sits in another class). When the branch's test read that state, the state decided the branch
and the constructor comes first; when only the branch's body read it, right after the reader.
A parameter the constructor stored as it came was made by its caller, and a literal start
value is changed by other methods: nothing is lifted."""

import pytest

from tests.helpers.locate import failing_test, line_of, ranked_among_passing, write_project

HELD = """\
import re


class Patterns:
    def __init__(self, separator):
        self.separator = separator
        self.date = r"(\\d+)" + separator + r"(\\d\\d)"

    def describe(self):
        return "dates split by " + self.separator


class Parser:
    def __init__(self):
        self.patterns = Patterns("-")

    def parse(self, text):
        found = re.match(self.patterns.date, text)
        if found is not None:
            return int(found.group(1)), int(found.group(2))
        return None


PARSER = Parser()
"""
TEST = """\
from dates import PARSER


def test_parse():
    assert PARSER.parse("12-2024") == (12, 2024)
"""


def ranked(tmp_path, held: str = HELD) -> list[str]:
    here, test_path = write_project(tmp_path, "dates", held, TEST)
    key = {n: f"{here}:{line_of(held, n)}" for n in ("def __init__(self, sep", "def parse(")}
    key["describe"] = f"{here}:{line_of(held, 'def describe(')}"
    key["Parser.__init__"] = f"{here}:{line_of(held, 'def __init__(self):')}"
    branch = line_of(held, "return int(")
    nodeid = "tests/test_dates.py::test_parse"
    error = ("AssertionError", "assert (12, 20) == (12, 2024)")
    ran = [key["def parse("], key["describe"]]  # describe: a def the test ran, for contrast
    failure = failing_test(test_path, nodeid, 5, error, [], ran, {here: [branch]})
    failure.import_covered = [key["def __init__(self, sep"], key["Parser.__init__"]]
    return ranked_among_passing(tmp_path, failure, ran, {here: []})


LOCAL = (
    HELD.replace("self.patterns.date", "Patterns('-').date")
    .replace("found = re.match(", "patterns = Patterns('-')\n        found = re.match(")
    .replace("Patterns('-').date", "patterns.date")
)


PROPERTY = HELD.replace("self.date = r", "self._date = r").replace(
    "    def describe(self):",
    "    @property\n    def date(self):\n        return self._date\n\n    def describe(self):",
)


@pytest.mark.parametrize(
    "held", [HELD, LOCAL, PROPERTY], ids=["held-on-self", "held-in-a-local", "read-by-a-property"]
)
def test_the_constructor_that_computed_the_state_deciding_the_branch_comes_first(tmp_path, held):
    assert ranked(tmp_path, held)[:2] == ["Patterns.__init__", "Parser.parse"]


def test_state_only_the_branch_read_puts_its_constructor_right_after_the_reader(tmp_path):
    held = HELD.replace("re.match(self.patterns.date, text)", 're.match("(.*)", text)')
    held = held.replace("int(found.group(2))", "len(re.findall(self.patterns.date, text))")
    # the holder's constructor, which made the held object, first among the makers
    # (`state_makers`: the body reads `self.patterns`)
    assert ranked(tmp_path, held)[:3] == ["Parser.parse", "Parser.__init__", "Patterns.__init__"]


@pytest.mark.parametrize(
    "stored",
    ["separator\n        pattern = r", "''\n        pattern = r"],
    ids=["a-parameter-as-it-came", "a-literal-start"],
)
def test_state_the_constructor_did_not_compute_lifts_it_not(tmp_path, stored):
    """`self.date = separator` was made by the caller; `self.date = ''` is a start value that
    other methods would change."""
    held = HELD.replace("self.date = r", f"self.date = {stored}")
    assert ranked(tmp_path, held)[:2] == ["Parser.parse", "Patterns.describe"]
