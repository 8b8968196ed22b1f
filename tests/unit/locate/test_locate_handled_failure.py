"""locate(): a block only the failing test ran is an `except` clause (issue 22, ranking). Its
function caught a failure on what it was handed (`day.replace(month=13)` refused the month):
the function the test ran that called it, and computed that month, comes right after it,
before the call on the failing line that only led there."""

from tests.helpers.locate import failing_test, line_of, ranked_among_passing, write_project

DATES = """\
import datetime


def with_month(day, month):
    try:
        return day.replace(month=month)
    except ValueError:
        return day.replace(month=12)


def correct_month(day, base):
    month = base + 1
    return with_month(day, month)


def parse(text, base):
    day = datetime.date.fromisoformat(text)
    return correct_month(day, base)
"""
TEST = """\
from dates import parse


def test_parse_keeps_the_base_month():
    assert parse("2024-01-05", 12).month == 12
"""


def ranked(tmp_path, dates=DATES, names=("parse", "correct_month", "with_month")) -> list[str]:
    here, test_path = write_project(tmp_path, "dates", dates, TEST)
    keys = [f"{here}:{line_of(dates, f'def {n}(')}" for n in names]
    caught = line_of(dates, "return day.replace(month=12)")
    nodeid = "tests/test_dates.py::test_parse_keeps_the_base_month"
    error = ("AssertionError", "assert 1 == 12")
    failure = failing_test(test_path, nodeid, 5, error, [], keys, {here: [caught]})
    return ranked_among_passing(tmp_path, failure, keys, {here: []})


def test_the_caller_of_a_function_whose_except_clause_ran_comes_right_after_it(tmp_path):
    assert ranked(tmp_path) == ["with_month", "correct_month", "parse"]


def test_a_specific_block_that_is_no_except_clause_lifts_no_caller(tmp_path):
    """The same block as an `if` branch: `with_month` decided, nothing failed in it."""
    dates = DATES.replace(
        "    try:\n        return day.replace(month=month)\n    except ValueError:\n",
        "    if month <= 12:\n        return day.replace(month=month)\n    else:\n",
    )
    assert ranked(tmp_path, dates)[:2] == ["with_month", "parse"]


def test_a_caller_whose_call_of_it_the_test_did_not_run_is_not_lifted(tmp_path):
    """`parse` calls `with_month` too, under a branch the failing test did not take: it handed
    nothing to the except clause and stays behind `shift`, which did (renamed from
    `correct_month`, which the test's name lifts)."""
    dates = DATES.replace("correct_month", "shift").replace(
        "    return shift(day, base)",
        "    if not base:\n        return with_month(day, 1)\n    return shift(day, base)",
    )
    assert ranked(tmp_path, dates, ("parse", "shift", "with_month"))[:2] == ["with_month", "shift"]
