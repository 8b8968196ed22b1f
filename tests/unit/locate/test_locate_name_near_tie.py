"""name_bonus: a name breaks near ties, it does not outweigh a much more specific block (issue 22,
ranking). In the spectrum's block tier scores are compressed (0.9 + 0.09 x block Ochiai), so two
name lifts (+0.14) could carry a suspect whose block ran in many passing tests past one whose
block ran in few: the lift that would do so is withdrawn; one past a near tie stays."""

from heal_ls.locate.affinity import name_bonus
from heal_ls.models import Failure, Suspect

NODEID = "tests/test_diffs.py::TestNestedDiff::test_path_of_a_nested_change"


def suspect(qualname: str, score: float) -> Suspect:
    return Suspect("diffs.py", qualname, 1, 0, 2, 0, "its block ran in the failing test", score)


def lifted(specific: float, mine: float = 0.10) -> list[str]:
    """`DiffLevel.path` (block Ochiai `mine`, named by the test and its class) against
    `Differ.compare_dicts` (block Ochiai `specific`, 0.04 above it, named by neither)."""
    suspects = {
        ("diffs.py", 1): suspect("DiffLevel.path", 0.91),
        ("diffs.py", 2): suspect("Differ.compare_dicts", 0.95),
    }
    failure = Failure(NODEID, "AssertionError", "assert 'a' == 'b'", [], test=NODEID)
    specificity = {("diffs.py", 1): mine, ("diffs.py", 2): specific}
    name_bonus(suspects, failure, set(suspects), specificity)
    ranked = sorted(suspects.values(), key=lambda s: -s.score)
    return [s.qualname for s in ranked]


def test_a_name_does_not_lift_past_a_block_many_times_as_specific():
    assert lifted(0.58) == ["Differ.compare_dicts", "DiffLevel.path"]


def test_a_name_still_breaks_a_near_tie():
    assert lifted(0.2) == ["DiffLevel.path", "Differ.compare_dicts"]


def test_without_a_spectrum_a_name_still_lifts():
    """No block or function Ochiai known (no run): nothing is more specific than anything."""
    assert lifted(0.0, mine=0.0)[0] == "DiffLevel.path"
