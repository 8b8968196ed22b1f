"""locate(): the first suspect's likeliest block is the branch it takes when a callee returned
None (`typeref = load_class(...)`, `if typeref is None: return obj`), and the failing test ran
that callee down a branch of its own (its fall-through `return None`): the callee found nothing
where it should have and the reader only coped, so the callee comes first (issue 22, ranking,
class A: jsonpickle's `loadclass` and `Unpickler._restore_type`)."""

from tests.helpers.locate import failing_test, line_of, ranked_among_passing, write_project

TYPES = """\
def load_class(name):
    for prefix in ("builtins.", "app."):
        if name.startswith(prefix) and name != "builtins.NoneType":
            return name
    return None


def restore_type(obj):
    typeref = load_class(obj["type"])
    if typeref is None:
        return obj
    return typeref


def decode(obj):
    return restore_type(obj)
"""
TEST = """\
from types_ import decode


def test_nonetype():
    assert decode({"type": "builtins.NoneType"}) == "builtins.NoneType"
"""


def ranked(tmp_path, callee_branch: bool) -> list[str]:
    here, test_path = write_project(tmp_path, "types_", TYPES, TEST)
    keys = [f"{here}:{line_of(TYPES, f'def {n}(')}" for n in ("decode", "restore_type")]
    keys.append(f"{here}:{line_of(TYPES, 'def load_class(')}")
    coped, fell_through = line_of(TYPES, "return obj"), line_of(TYPES, "return None")
    ran = [coped, fell_through] if callee_branch else [coped]
    nodeid = "tests/test_types_.py::test_nonetype"
    error = ("AssertionError", "assert {'type': 'builtins.NoneType'} == 'builtins.NoneType'")
    failure = failing_test(test_path, nodeid, 5, error, [], keys, {here: ran})
    # the passing tests ran load_class's loop, never its fall-through
    return ranked_among_passing(tmp_path, failure, keys, {here: [line_of(TYPES, "if name.")]})


def test_the_callee_that_returned_none_down_a_branch_of_its_own_comes_first(tmp_path):
    assert ranked(tmp_path, callee_branch=True)[:2] == ["load_class", "restore_type"]


def test_a_callee_that_only_ran_its_entry_leaves_the_reader_first(tmp_path):
    assert ranked(tmp_path, callee_branch=False)[0] == "restore_type"
