"""locate(): a getter made nothing (issue 22, ranking). The failing line checks what a function
returned that only hands back state read off its argument (`attr.fields(C)` returns what
`@attr.s` stored on C): it is no maker of the checked value, and what stored it is not
outranked by it."""

from heal_ls.locate import locate
from heal_ls.models import Failure, Frame, RunResult

from tests.helpers.locate import keys_of, line_of, write_project

BOXES = """\
def build(cls, names):
    cls.entries = tuple(names)
    return cls


def entries(cls):
    found = getattr(cls, "entries", None)
    if found is None:
        raise TypeError("not built")
    return found
"""
TEST = """\
from boxes import build, entries


def test_a_built_class_keeps_a_list():
    class C:
        pass

    build(C, ["x"])
    kind = type(entries(C))
    assert kind is list
"""


def ranked(tmp_path, boxes=BOXES) -> list[str]:
    here, test_path = write_project(tmp_path, "boxes", boxes, TEST)
    nodeid = "tests/test_boxes.py::test_a_built_class_keeps_a_list"
    line = line_of(TEST, "assert kind")
    failure = Failure(
        id=nodeid,
        test=nodeid,
        exc_type="AssertionError",
        message="assert <class 'tuple'> is list",
        frames=[Frame(test_path, line, "test_a_built_class_keeps_a_list")],
        test_path=test_path,
        test_line=line,
        covered=keys_of(here, boxes, ("build", "entries")),
    )
    run = RunResult(str(tmp_path), 0, 1, failures=[failure])
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_a_getter_does_not_outrank_what_stored_the_value_it_read(tmp_path):
    assert ranked(tmp_path) == ["build", "entries"]


def test_a_function_that_computes_what_it_returns_still_made_it(tmp_path):
    """`entries` counts instead of handing back what it read: it computed the value checked."""
    boxes = BOXES.replace("    return found\n", "    return list(found) + []\n")
    assert ranked(tmp_path, boxes)[0] == "entries"
