"""The plugin-free confirmation's judgement (testing/confirm.py): every asked test passed for
real, nothing else ran, heal-ls's sentinel ran last and failed, and pytest's exit status is 1."""

from __future__ import annotations

import pytest
from heal_ls.testing.confirm import CONFIRMED, judge
from heal_ls.testing.junit import Case

ASKED = ["tests/test_m.py::test_a", "tests/test_m.py::TestB::test_b[1]"]
SENTINEL = "test_heal_sentinel_0a1b2c"
A = Case("tests.test_m", "test_a", "passed")
B = Case("tests.test_m.TestB", "test_b[1]", "passed")
LAST = Case("...tmp.heal-ls-run-x.test_heal_sentinel_0a1b2c", SENTINEL, "failed", "0a1b2c")


def test_the_honest_run_is_confirmed():
    assert judge([A, B, LAST], 1, ASKED, SENTINEL).summary == CONFIRMED
    assert judge([A, B, LAST], 1, ASKED, SENTINEL).passed


@pytest.mark.parametrize(
    ("cases", "code", "why"),
    [
        ([A, B, Case(LAST.classname, SENTINEL, "passed")], 0, "sentinel test, which must fail"),
        ([A, Case(B.classname, B.name, "skipped", "later"), LAST], 1, "test_b[1] skipped: later"),
        (
            [A, Case(B.classname, B.name, "failed", "assert 1 == 2"), LAST],
            1,
            "failed: assert 1 == 2",
        ),
        ([A, LAST], 1, "test_b[1] was not reported (1 of 2 tests ran)"),
        ([A, B, Case("tests.test_m", "test_c", "passed"), LAST], 1, "test_c, which was not"),
        ([A, B], 0, "sentinel test did not run last"),
        ([LAST, A, B], 1, "sentinel test did not run last"),
        ([A, B, LAST, LAST], 1, "sentinel test did not run last"),
        ([A, B, LAST], 0, "exit status was 0, not 1"),
        ([], 5, "tests/test_m.py::test_a was not reported"),
    ],
)
def test_anything_else_disagrees(cases, code, why):
    outcome = judge(cases, code, ASKED, SENTINEL)
    assert not outcome.passed
    assert outcome.summary.startswith("the plugin-free confirmation run disagrees: ")
    assert why in outcome.summary
