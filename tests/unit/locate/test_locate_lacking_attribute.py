"""locate(): the failing test read an attribute its object lacks (issue 22, ranking, class A:
the fault made a value and returned). The test says what the object should hold, so the
constructor that ran and stores the object's other attributes on `self` left it out; it comes
before the method the test called on the object, which only read it."""

from tests.helpers.locate import failing_test, line_of, ranked_among_passing, write_project

DAYS = """\
class Weekday(str):
    def __new__(cls, value):
        self = super().__new__(cls, value)
        self.relative = int(value[:-2] or 0)
        return self

    def to_ical(self):
        return self.encode().upper()
"""
TEST = """\
from days import Weekday


def test_sign():
    day = Weekday("-1MO")
    assert day.to_ical() == b"-1MO"
    assert day.sign == "-"
"""


def ranked(tmp_path, error: tuple[str, str], test: str = TEST) -> list[str]:
    here, test_path = write_project(tmp_path, "days", DAYS, test)
    keys = [f"{here}:{line_of(DAYS, f'def {n}(')}" for n in ("__new__", "to_ical")]
    nodeid = "tests/test_days.py::test_sign"
    failure = failing_test(test_path, nodeid, len(test.splitlines()), error, [], keys)  # the last
    return ranked_among_passing(tmp_path, failure, keys)


def test_the_constructor_that_left_the_attribute_out_comes_first(tmp_path):
    error = ("AttributeError", "'Weekday' object has no attribute 'sign'")
    assert ranked(tmp_path, error)[:2] == ["Weekday.__new__", "Weekday.to_ical"]


def test_a_wrong_value_is_no_missing_attribute(tmp_path):
    """The attribute is there with a wrong value: the rule has nothing to say."""
    test = TEST.replace('day.sign == "-"', "day.relative == -1")
    assert ranked(tmp_path, ("AssertionError", "assert 1 == -1"), test)[0] == "Weekday.to_ical"


def test_an_object_of_another_class_names_no_constructor(tmp_path):
    error = ("AttributeError", "'bytes' object has no attribute 'sign'")
    assert ranked(tmp_path, error)[0] == "Weekday.to_ical"


PARSER = """\
class Request:
    def __init__(self):
        self.headers = {}

    def parse_first_line(self, line):
        command, uri = line.split()
        self.command = command
        self.path = uri.split("?")[0]
"""
REQUEST = """\
from parser import Request


def test_request_uri():
    request = Request()
    request.parse_first_line("GET /a?b")
    assert request.request_uri == "/a?b"
"""


def test_the_def_that_held_the_value_in_a_local_comes_before_the_constructor(tmp_path):
    """`request_uri` is named for the `uri` parse_first_line split off the line and dropped:
    the def that had the value in hand comes first, then the constructor."""
    here, test_path = write_project(tmp_path, "parser", PARSER, REQUEST)
    keys = [f"{here}:{line_of(PARSER, f'def {n}(')}" for n in ("__init__", "parse_first_line")]
    nodeid = "tests/test_parser.py::test_request_uri"
    error = ("AttributeError", "'Request' object has no attribute 'request_uri'")
    failure = failing_test(test_path, nodeid, 7, error, [], keys)
    ranked = ranked_among_passing(tmp_path, failure, keys)
    assert ranked[:2] == ["Request.parse_first_line", "Request.__init__"]
