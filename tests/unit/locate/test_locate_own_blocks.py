"""locate(): of suspects the evidence ties exactly, the one with more blocks (its entry, its
branches) the failing test ran and no passing test did comes first (issue 22, ranking: flat
spectra and exact ties, where the functions the failing test ran have the same Ochiai, so
whole functions say nothing; the branches inside them still differ)."""

import pytest
from heal_ls import models
from heal_ls.locate import locate
from heal_ls.models import RunResult

from tests.helpers.locate import failing_test, keys_of, line_of, write_project

ROWS = """\
def report(rows):
    return title(rows) + body(rows)


def title(rows):
    return "Rows"


def body(rows):
    out = []
    for row in rows:
        if row is None:
            continue
        out.append(str(row))
    return ",".join(out)
"""
TEST = """\
from rows import report


def test_report_skips_nothing():
    assert report([1, None]) == "Rows1,None"
"""
BRANCHES = ("if row is None", "continue", "out.append", 'return ",".join')


def ranked(tmp_path, recorded=True, passing_took=False) -> list[str]:
    """locate()'s order of `title` and `body` (both run by the failing line's `report`), when
    the failing test ran body's branches (`recorded`: its blocks were) and a passing test ran
    only `report` (or, when `passing_took`, all three functions and body's branches)."""
    here, test_path = write_project(tmp_path, "rows", ROWS, TEST)
    covered = keys_of(here, ROWS, ("report", "title", "body"))  # title first: insertion order
    branches = {here: [line_of(ROWS, needle) for needle in BRANCHES]}
    error = ("AssertionError", "assert 'Rows1' == 'Rows1,None'")
    nodeid = "tests/test_rows.py::test_report_skips_nothing"
    failure = failing_test(test_path, nodeid, 5, error, [], covered, branches if recorded else None)
    passing = models.TestOutcome(
        "tests/test_rows.py::test_other", "passed",
        covered=covered if passing_took else covered[:1],
        blocks=branches if passing_took else {here: []},
    )  # fmt: skip
    run = RunResult(str(tmp_path), passed=1, failed=1, failures=[failure], tests=[passing])
    located = [s for s in locate(failure, str(tmp_path), run).suspects if s.qualname != "report"]
    assert located[0].score == located[1].score  # the spectrum ties them
    return [s.qualname for s in located[:2]]


def test_the_tied_function_with_more_blocks_only_the_failing_test_ran_comes_first(tmp_path):
    assert ranked(tmp_path) == ["body", "title"]


@pytest.mark.parametrize(
    ("recorded", "passing_took"),
    [(False, True), (True, True)],
    ids=["no-blocks-recorded", "a-passing-test-took-them-too"],
)
def test_branches_a_passing_test_took_or_none_recorded_say_nothing(
    tmp_path, recorded, passing_took
):
    """The order of the evidence stands (the run's order of the functions)."""
    assert ranked(tmp_path, recorded, passing_took) == ["title", "body"]
