"""locate() when a test expects `ValueError` and the call crashed deeper with another exception
(issue 22, ranking): the function that made the argument the raising line tripped over, and
already refuses other bad inputs with `ValueError`, is where this input's refusal is missing;
it comes before the callers on the path."""

from heal_ls.locate import locate
from heal_ls.models import Frame

from tests.helpers.locate import failed_run, keys_of, line_of, write_project

DATES = """\
from decimal import Decimal


def raise_from(exc, cause):
    raise exc from cause


def to_number(text):
    try:
        return Decimal(text)
    except Exception as e:
        raise_from(ValueError(f"not a number: {text}"), e)


def add_year(years, value):
    if value > 100:
        years.append(value)


def parse(text):
    if not text:
        raise ValueError("empty")
    value = to_number(text)
    add_year([], value)
"""
TEST = """\
import pytest
from dates import parse


def test_nan_is_refused():
    with pytest.raises(ValueError):
        parse("nan")
"""


def crash(tmp_path, dates=DATES, test=TEST, nodeid="tests/test_dates.py::test_nan_is_refused"):
    here, test_path = write_project(tmp_path, "dates", dates, test)
    keys = keys_of(here, dates, ("to_number", "add_year", "parse"))
    crash_frames = [
        Frame(here, line_of(dates, "add_year([], value)"), "parse"),
        Frame(here, line_of(dates, "if value > 100"), "add_year"),
    ]
    error = ("InvalidOperation", "[<class 'decimal.InvalidOperation'>]")
    return failed_run(tmp_path, test_path, nodeid, 7, error, crash_frames, keys)


def test_the_maker_of_the_argument_that_refuses_other_inputs_comes_first(tmp_path):
    failure, run = crash(tmp_path)
    located = locate(failure, str(tmp_path), run)
    assert located.suspects[0].qualname == "to_number"
    assert located.suspects[0].reason.startswith("raises ValueError for other inputs")


def test_a_maker_that_refuses_nothing_leaves_the_caller_first(tmp_path):
    plain = DATES.replace('raise_from(ValueError(f"not a number: {text}"), e)', "return None")
    failure, run = crash(tmp_path, plain)
    located = locate(failure, str(tmp_path), run)
    assert located.suspects[0].qualname == "parse"


ALIASED = """\
import unittest
from dates import parse, error as DateError


class TestParse(unittest.TestCase):
    def test_nan_is_refused(self):
        self.failUnlessRaises(DateError, parse, "nan")
"""


def test_an_expected_class_imported_under_another_name_is_raised_by_its_own(tmp_path):
    """unittest's old failUnlessRaises, expecting `error` imported as DateError: parse raises
    `error` for other inputs, so it comes first (mutagen's ID3Header, error as ID3Error)."""
    dates = DATES.replace("ValueError", "error").replace(
        "from decimal import Decimal",
        "from decimal import Decimal\n\n\nclass error(Exception):\n    pass",
    )
    dates = dates.replace('raise_from(error(f"not a number: {text}"), e)', "return None")
    nodeid = "tests/test_dates.py::TestParse::test_nan_is_refused"
    failure, run = crash(tmp_path, dates, ALIASED, nodeid)
    located = locate(failure, str(tmp_path), run)
    assert located.suspects[0].qualname == "parse"
    assert located.suspects[0].reason.startswith("raises DateError/error for other inputs")
