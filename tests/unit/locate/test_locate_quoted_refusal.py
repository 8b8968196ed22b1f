"""locate() after a crash in a protocol method Python called (issue 22, ranking): `issubclass(
value, expected)` ran typing's `__subclasscheck__`, which no call on the line names, and refused
`typing.Self cannot be used with issubclass()`. The message quotes the value of `expected`, made
on the raising line's own def, so the trail of `value` (handed down unchanged from the loop that
read it out of the test's arguments) is not what was refused: the raise site stays first
(typeguard's check_class, not check_argument_types)."""

import pytest
from heal_ls.locate import locate
from heal_ls.models import Frame

from tests.helpers.locate import failed_run, keys_of, line_of, write_project

CHECKS = """\
def check_class(value, args):
    expected = args[0]
    if not issubclass(value, expected):
        raise TypeError("not a subclass")


def check_type(value, args):
    return check_class(value, args)


def check_arguments(arguments):
    for name, (value, args) in arguments.items():
        check_type(value, args)
"""
TEST = """\
from typing import Self
from checks import check_arguments


def test_self_type():
    check_arguments({"cls": (int, (Self,))})
"""
TYPING = "/usr/lib/python3.11/typing.py"


@pytest.mark.parametrize(
    ("message", "first"),
    [
        ("typing.Self cannot be used with issubclass()", "check_class"),
        ("issubclass() arg 1 must be a class", "check_arguments"),
    ],
)
def test_the_value_the_message_quotes_is_the_one_refused(tmp_path, message, first):
    here, test_path = write_project(tmp_path, "checks", CHECKS, TEST)
    keys = keys_of(here, CHECKS, ("check_class", "check_type", "check_arguments"))
    held = {"value": "<class 'int'>", "args": "(typing.Self,)"}
    crash_frames = [
        Frame(here, line_of(CHECKS, "        check_type("), "check_arguments", held),
        Frame(here, line_of(CHECKS, "return check_class("), "check_type", held),
        Frame(
            here,
            line_of(CHECKS, "if not issubclass("),
            "check_class",
            held | {"expected": "typing.Self"},
        ),
        Frame(TYPING, 484, "__subclasscheck__"),
    ]
    nodeid = "tests/test_checks.py::test_self_type"
    failure, run = failed_run(
        tmp_path, test_path, nodeid, 6, ("TypeError", message), crash_frames, keys
    )
    located = locate(failure, str(tmp_path), run)
    assert located.suspects[0].qualname == first
