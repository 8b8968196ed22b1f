"""locate() when the failing line renders a value another call made (issue 22, ranking):
`str(v)` runs `v.__str__`, an accessor; that fewer passing tests stringify values than parse
them does not lift `__str__` over `parse`, which made `v`; a branch of `__str__`'s own that
only the failing test took still does, and so does its block over a constructor's."""

from heal_ls.locate import locate
from heal_ls.models import RunResult
from heal_ls.models import TestOutcome as Outcome

from tests.helpers.locate import failing_test, line_of, write_project

VER = """\
class Version:
    def __init__(self, major, minor):
        self.major = major
        self.minor = minor

    @classmethod
    def parse(cls, text):
        major, minor = text.split(".")
        return Version(int(major), int(minor))

    def __str__(self):
        if self.minor:
            return f"{self.major}.{self.minor}"
        return f"{self.major}"
"""
PARSED = """\
from ver import Version


def test_round_trip():
    v = Version.parse("1.0")
    assert str(v) == "1.0"
"""
BUILT = """\
from ver import Version


def test_round_trip():
    assert str(Version(1, 0)) == "1.0"
"""


def ranked(tmp_path, test: str, branch: bool) -> list[str]:
    """Every test ran Version(); 20 passing tests parsed, 4 of those stringified too (its
    first branch). The failing one ran `__str__`'s first branch too, or (`branch`) its last."""
    here, test_path = write_project(tmp_path, "ver", VER, test)
    init, parse, render = (line_of(VER, n) for n in ("def __init__", "@classmethod", "def __str__"))
    keys = [f"{here}:{n}" for n in (init, parse, render)]
    made = [line_of(VER, "major, minor =")]
    shown = [line_of(VER, 'return f"{self.major}.')]
    mine = {here: made + ([line_of(VER, 'return f"{self.major}"')] if branch else shown)}
    line = len(test.splitlines())
    error = ("AssertionError", "assert '1' == '1.0'")
    nodeid = "tests/test_ver.py::test_round_trip"
    failure = failing_test(test_path, nodeid, line, error, [], keys, mine)
    passing = [
        Outcome(f"t::{n}", "passed", covered=keys[:2], blocks={here: made}) for n in range(16)
    ]
    passing += [
        Outcome(f"s::{n}", "passed", covered=keys, blocks={here: made + shown}) for n in range(4)
    ]
    run = RunResult(str(tmp_path), 20, 1, failures=[failure], tests=passing)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_rendering_a_value_parse_made_does_not_lift_str_over_parse(tmp_path):
    """semver's `SemVerWithVPrefix.parse(...)` then `str(v)`: the fix was in `parse`."""
    assert ranked(tmp_path, PARSED, branch=False)[:2] == ["Version.parse", "Version.__str__"]


def test_a_branch_only_the_failing_test_took_still_lifts_str(tmp_path):
    assert ranked(tmp_path, PARSED, branch=True)[0] == "Version.__str__"


def test_str_of_a_constructed_value_is_still_lifted_over_the_constructor(tmp_path):
    """`str(Version(1, 0))`: the constructor only built it; `__str__`'s block, more specific
    than the constructor's, lifts it as before."""
    assert ranked(tmp_path, BUILT, branch=False)[0] == "Version.__str__"
