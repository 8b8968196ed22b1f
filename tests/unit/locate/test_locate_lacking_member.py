"""locate(): the failing test used a member its object's class, one of ours, does not have yet
(issue 22, class M: the fix adds a method the test calls). No def of the class ran wrong, so
the class itself is the suspect, first, with the reason, healable by adding that member
(heal/member.py)."""

from dataclasses import replace

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
    return located_error(
        tmp_path, ("AttributeError", f"'Set' object has no attribute '{name}'"), text, test
    )


def located_error(tmp_path, error: tuple[str, str], text: str = SETS, test: str = TEST):
    """The failure `error` raised on the test's line 7, the class's two defs having run."""
    tmp_path.mkdir(exist_ok=True)
    here, test_path = write_project(tmp_path, "sets", text, test)
    keys = [f"{here}:{line_of(text, f'def {n}(')}" for n in ("__init__", "add")]
    failure = failing_test(test_path, "tests/test_sets.py::test_disjoint", 7, error, [], keys)
    return locate(failure, str(tmp_path), RunResult(str(tmp_path), failures=[failure]))


def test_a_method_the_test_calls_and_the_class_lacks_names_the_class(tmp_path):
    found = located(tmp_path, TEST, "isdisjoint")
    top = found.suspects[0]
    assert (top.qualname, top.start_line, top.end_line, top.focus_line) == ("Set", 1, 7, 1)
    assert top.reason == "lacks the method isdisjoint that tests/test_sets.py:7 calls"
    assert [s.qualname for s in found.suspects[1:3]] == ["Set.__init__", "Set.add"]
    assert found.healable and found.reason is None and top.member == "isdisjoint"


def test_a_value_kept_under_the_private_name_lacks_its_public_accessor(tmp_path):
    test = TEST.replace("s.isdisjoint(Set([3]))", "s.size.bit_length() == 2")
    found = located(tmp_path, test, "size")
    assert found.suspects[0].qualname == "Set"
    assert (
        found.suspects[0].reason == "keeps _size but has no size, which tests/test_sets.py:7 reads"
    )
    assert found.healable and found.suspects[0].member == "size"


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


def test_an_operator_the_class_lacks_names_the_left_operands_class(tmp_path):
    """Python's words for `s / 2` (furl-bb1bcb33: `Path` had no `__truediv__` yet); an
    operand's class that is not ours (`int`) is not a suspect."""
    error = ("TypeError", "unsupported operand type(s) for /: 'Set' and 'int'")
    found = located_error(tmp_path / "left", error)
    assert found.suspects[0].qualname == "Set" and found.suspects[0].member == "__truediv__"
    assert found.suspects[0].reason == "lacks __truediv__ for the / that tests/test_sets.py:7 uses"
    error = ("TypeError", "unsupported operand type(s) for -=: 'int' and 'Set'")
    found = located_error(tmp_path / "right", error)
    assert found.suspects[0].reason == "lacks __rsub__ for the -= that tests/test_sets.py:7 uses"


def test_an_unhashable_class_and_a_property_without_a_setter_name_the_class(tmp_path):
    """`{oui: None}` of a class with `__eq__` and no `__hash__` (netaddr-b6c4203f); `ip.netmask
    = m` of a property with no setter (netaddr-b08dcb6e)."""
    found = located_error(tmp_path / "hash", ("TypeError", "unhashable type: 'Set'"))
    assert (found.suspects[0].qualname, found.suspects[0].member) == ("Set", "__hash__")
    assert found.suspects[0].reason == "lacks __hash__, which tests/test_sets.py:7 needs"
    text = SETS + "\n    @property\n    def size(self):\n        return self._size\n"
    error = ("AttributeError", "property 'size' of 'Set' object has no setter")
    found = located_error(tmp_path / "setter", error, text)
    assert (found.suspects[0].qualname, found.suspects[0].member) == ("Set", "size.setter")
    assert found.healable and found.suspects[0].reason == (
        "lacks a setter for size, which tests/test_sets.py:7 assigns"
    )


def test_a_dunder_or_setter_the_class_defines_stays_with_the_defs(tmp_path):
    """The class has `__hash__` (it raised `unhashable` itself?) or the setter: a def of it ran
    wrong, so the defs are ranked, not the class."""
    text = SETS + "\n    def __hash__(self):\n        return 0\n"
    found = located_error(tmp_path / "hash", ("TypeError", "unhashable type: 'Set'"), text)
    assert found.suspects and found.suspects[0].qualname != "Set"
    text = SETS + (
        "\n    @property\n    def size(self):\n        return self._size\n"
        "\n    @size.setter\n    def size(self, n):\n        self._size = n\n"
    )
    error = ("AttributeError", "property 'size' of 'Set' object has no setter")
    found = located_error(tmp_path / "setter", error, text)
    assert found.suspects and found.suspects[0].qualname != "Set"
    error = ("TypeError", "unsupported operand type(s) for /: 'int' and 'str'")
    found = located_error(tmp_path / "builtins", error)
    assert found.suspects and found.suspects[0].qualname != "Set"


MANAGED = """\
from sets import Set


async def test_disjoint():
    s = Set([1])
    s.add(2)
    async with Lock() as held, s:
        pass
"""
LOCK = "\n\nclass Lock:\n    async def __aenter__(self):\n        return self\n"


def test_a_with_names_the_class_lacking_the_protocol_in_every_wording(tmp_path):
    """3.11+ name the class (zeep-8d4f2353: `AsyncClient` had `__aexit__`, not `__aenter__`);
    3.8-3.10 name the method alone: of the classes the statement builds (`Lock()`) or holds in
    a local (`s`, by its recorded repr), the one of ours that lacks it."""
    said = ("TypeError", "'Set' object does not support the asynchronous context manager protocol")
    found = located_error(tmp_path / "named", said, SETS + LOCK, MANAGED)
    assert (found.suspects[0].qualname, found.suspects[0].member) == ("Set", "__aenter__")
    assert found.suspects[0].reason == (
        "lacks __aenter__ for the async with that tests/test_sets.py:7 uses"
    )
    said = ("AttributeError", "__aenter__")
    found = located_error(tmp_path / "unnamed", said, SETS + LOCK, MANAGED)
    assert found.suspects[0].qualname != "Set"  # `s`'s repr was not recorded: no class known
    tmp_path.joinpath("local").mkdir()
    here, test_path = write_project(tmp_path / "local", "sets", SETS + LOCK, MANAGED)
    keys = [f"{here}:{line_of(SETS, 'def __init__(')}"]
    failure = failing_test(
        test_path, "t::test_disjoint", 7, ("AttributeError", "__aenter__"), [], keys
    )
    failure.frames[0] = replace(failure.frames[0], locals={"s": "<sets.Set object at 0x1>"})
    found = locate(failure, str(tmp_path / "local"), RunResult(str(tmp_path), failures=[failure]))
    assert (found.suspects[0].qualname, found.suspects[0].member) == ("Set", "__aenter__")


def test_a_with_of_a_class_not_ours_or_having_the_method_names_no_class(tmp_path):
    """`'int' object does not support the context manager protocol` (tenacity-0b1cef0b: a def
    returned the wrong value); `__aenter__` missing on `async with Lock()`, whose class defines
    it: no class of ours in the statement lacks it, so the defs are ranked."""
    said = ("TypeError", "'int' object does not support the context manager protocol")
    found = located_error(tmp_path / "int", said, SETS + LOCK, MANAGED)
    assert found.suspects and found.suspects[0].qualname != "Set"
    said = ("AttributeError", "__aenter__")
    found = located_error(tmp_path / "has", said, SETS + LOCK, MANAGED.replace(", s:", ":"))
    assert found.suspects and found.suspects[0].qualname not in ("Set", "Lock")
