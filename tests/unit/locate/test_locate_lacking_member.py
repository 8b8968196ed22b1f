"""locate(): the failing test used a member its object's class, one of ours, does not have yet
(issue 22, class M: the fix adds a method the test calls). No def of the class ran wrong, so
the class itself is the suspect, first, with the reason, and no function is offered to heal."""

from heal_ls.locate import locate
from heal_ls.models import RunResult

from tests.helpers.locate import failing_test, line_of, write_project

SETS = """\
class Set:
    def __init__(self, items=()):
        self.items = dict.fromkeys(items)
        self._size = len(self.items)

    def add(self, item):
        self.items[item] = None
"""
TEST = """\
from sets import Set


def test_disjoint():
    s = Set([1])
    s.add(2)
    assert s.isdisjoint(Set([3]))
"""


def located(tmp_path, test: str, name: str, text: str = SETS):
    tmp_path.mkdir(exist_ok=True)
    here, test_path = write_project(tmp_path, "sets", text, test)
    keys = [f"{here}:{line_of(text, f'def {n}(')}" for n in ("__init__", "add")]
    error = ("AttributeError", f"'Set' object has no attribute '{name}'")
    failure = failing_test(test_path, "tests/test_sets.py::test_disjoint", 7, error, [], keys)
    return locate(failure, str(tmp_path), RunResult(str(tmp_path), failures=[failure]))


def test_a_method_the_test_calls_and_the_class_lacks_names_the_class(tmp_path):
    found = located(tmp_path, TEST, "isdisjoint")
    top = found.suspects[0]
    assert (top.qualname, top.start_line, top.end_line, top.focus_line) == ("Set", 1, 7, 1)
    assert top.reason == "lacks the method isdisjoint that tests/test_sets.py:7 calls"
    assert [s.qualname for s in found.suspects[1:3]] == ["Set.__init__", "Set.add"]
    assert not found.healable
    assert found.reason == (
        "Set lacks the method isdisjoint that tests/test_sets.py:7 calls: write it there first"
        " (heal-ls heals functions that exist)"
    )


def test_a_value_kept_under_the_private_name_lacks_its_public_accessor(tmp_path):
    test = TEST.replace("s.isdisjoint(Set([3]))", "s.size.bit_length() == 2")
    found = located(tmp_path, test, "size")
    assert found.suspects[0].qualname == "Set"
    assert (
        found.suspects[0].reason == "keeps _size but has no size, which tests/test_sets.py:7 reads"
    )
    assert not found.healable


def test_a_plain_read_or_an_attribute_a_def_stores_stays_with_the_defs(tmp_path):
    """`s.count` read, nothing kept as `_count`: a def may have left it out (lacking_attribute
    ranks the constructor); `s.items` called but stored by `__init__` on another path."""
    read = located(
        tmp_path / "read", TEST.replace("s.isdisjoint(Set([3]))", "s.count == 2"), "count"
    )
    assert read.healable and read.suspects[0].qualname == "Set.__init__"
    stored = SETS.replace(
        "        self.items = dict", "        if items:\n            self.items = dict"
    )
    called = TEST.replace("s.isdisjoint(Set([3]))", "s.items()")
    found = located(tmp_path / "stored", called, "items", stored)
    assert found.healable and found.suspects[0].qualname != "Set"


def test_the_member_of_what_the_member_returns_is_not_the_one_called(tmp_path):
    """`s.size.bit_length()` reads `s.size` and calls what it holds: with no `_size` kept,
    nothing says the class lacks a member."""
    text = SETS.replace("        self._size = len(self.items)\n", "")
    test = TEST.replace("s.isdisjoint(Set([3]))", "s.size.bit_length() == 2")
    found = located(tmp_path, test, "size", text)
    assert found.healable and found.suspects[0].qualname != "Set"
