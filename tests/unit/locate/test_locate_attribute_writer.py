"""locate(): the failing check compares an attribute that a def the test ran changed on an
object it was handed, after the object was made (issue 22, ranking, class A: the fault made a
value and returned): `_setattr(field, "type", ...)` in `resolve` made the `.type` that
`assert int == fields(B)[0].type` reads; it comes before `fields`, which only returned it."""

from heal_ls import models
from heal_ls.locate import locate

from tests.helpers.locate import failing_test, keys_of, line_of, write_project

FIELDS = """\
def _setattr(obj, name, value):
    object.__setattr__(obj, name, value)


class Field:
    def __init__(self, name, type):
        self.name = name
        self.type = type


def fields(cls):
    return cls.declared


def resolve(cls):
    if hasattr(cls, "resolved"):
        return cls
    for field in cls.declared:
        _setattr(field, "type", eval(field.type))
    cls.resolved = True
    return cls
"""
TEST = """\
from fields import Field, fields, resolve


def test_inheritance():
    class A:
        declared = [Field("n", "int")]

    class B(A):
        declared = [Field("n", "int")]

    resolve(A)
    resolve(B)
    assert int == fields(B)[0].type
"""


def ranked(tmp_path, test: str = TEST, blocks=None) -> list[str]:
    here, test_path = write_project(tmp_path, "fields", FIELDS, test)
    keys = keys_of(here, FIELDS, ("_setattr", "__init__", "fields", "resolve"))
    nodeid = "tests/test_fields.py::test_inheritance"
    error = ("AssertionError", "assert int == 'int'")
    failure = failing_test(test_path, nodeid, line_of(test, "assert "), error, [], keys)
    failure.blocks = blocks
    passing = [models.TestOutcome("tests/test_fields.py::test_field", "passed", covered=keys[1:3])]
    run = models.RunResult(str(tmp_path), passed=1, failed=1, failures=[failure], tests=passing)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_the_def_that_changed_the_compared_attribute_comes_first(tmp_path):
    assert ranked(tmp_path)[0] == "resolve"


def test_a_change_in_a_block_the_test_did_not_run_changed_nothing(tmp_path):
    here = str(tmp_path / "fields.py")
    assert ranked(tmp_path, blocks={here: [line_of(FIELDS, "        return cls")]})[0] != "resolve"


def test_an_attribute_the_check_does_not_compare_is_no_evidence(tmp_path):
    test = TEST.replace("assert int == fields(B)[0].type", "assert int is fields(B)[0].kind")
    assert ranked(tmp_path, test)[0] != "resolve"
