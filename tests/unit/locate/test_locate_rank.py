"""locate(): hand-made failures against small literal workspaces -> ranked suspects."""

import sys
from textwrap import dedent

import pytest
from heal_ls.locate import locate
from heal_ls.models import Failure, Frame, RunResult
from heal_ls.models import TestOutcome as Outcome

SHOP = '''\
"""Stock."""
import json

LIMIT = int("3")


class Inventory:
    default = {}

    def __init__(self):
        self.items = {}

    def remove(self, name, count=1):
        have = self.items[name]
        self.items[name] = have - count

    def count(self, name):
        return self.items.get(name, 0)

    def load(self, text):
        self.items = json.loads(text)


def mean(values):
    total = 0
    for value in values:
        total = value
    return total / len(values)


def median(values):
    return sorted(values)[len(values) // 2]


def outer(values):
    def inner(v):
        return [x / v for x in values]

    return inner(0)
'''

TEST = """\
import pytest

from shop.core import Inventory, mean, median


def test_mean():
    data = [1, 2, 3, 4]
    assert median(data) == 3
    assert mean(data) == 2.5


def test_count():
    inv = Inventory()
    assert inv.count("x") == 1


def test_raises():
    inv = Inventory()
    with pytest.raises(KeyError):
        inv.count("pear")


def test_flow():
    data = [1, 2]
    middle = median(data)
    result = mean([middle])
    assert result == 2.5


def test_state():
    inv = Inventory()
    inv.load('{"pear": 2}')
    inv.remove("pear")
    assert inv.items == {"pear": 1}
"""


@pytest.fixture
def ws(tmp_path):
    (tmp_path / "shop").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "core.py").write_text(SHOP)
    (tmp_path / "tests" / "test_core.py").write_text(TEST)
    return tmp_path


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def core(ws, needle, function):
    return Frame(str(ws / "shop" / "core.py"), line_of(SHOP, needle), function)


def test_frame(ws, needle, function):
    return Frame(str(ws / "tests" / "test_core.py"), line_of(TEST, needle), function)


test_frame.__test__ = False  # a helper, not a test


def key(ws, needle):
    return f"{ws / 'shop' / 'core.py'}:{line_of(SHOP, needle)}"


def summary(located):
    return [(s.qualname, s.reason) for s in located.suspects]


def test_crash_in_a_method_is_raised_here(ws):
    failure = Failure(
        id="tests/test_core.py::test_count",
        exc_type="KeyError",
        message="'pear'",
        frames=[
            test_frame(ws, 'inv.count("pear")', "test_raises"),
            core(ws, "have = self.items[name]", "remove"),
        ],
    )
    located = locate(failure, str(ws))
    assert located.healable and located.reason is None
    top = located.suspects[0]
    assert (top.qualname, top.reason, top.score) == ("Inventory.remove", "raised here", 1.0)
    assert (top.start_line, top.def_line, top.end_line) == (13, 13, 15)
    assert top.focus_line == 14 and top.path == str(ws / "shop" / "core.py")


def test_crash_deep_in_a_nested_comprehension_ranks_callers_after(ws):
    failure = Failure(
        id="t",
        exc_type="ZeroDivisionError",
        message="division by zero",
        frames=[
            Frame("/usr/lib/python3/runpy.py", 10, "_run"),
            core(ws, "return inner(0)", "outer"),
            core(ws, "def inner(v)", "inner"),
            core(ws, "return [x / v", "<listcomp>"),
        ],
    )
    located = locate(failure, str(ws))
    assert summary(located) == [
        ("outer.<locals>.inner", "raised here"),
        ("outer", "on the failing call path"),
    ]
    assert located.suspects[1].score < located.suspects[0].score


def test_raised_inside_a_library_called_from_workspace(ws):
    lib = ws / ".venv" / "lib" / "json" / "decoder.py"
    failure = Failure(
        id="t",
        exc_type="JSONDecodeError",
        message="Expecting value",
        frames=[core(ws, "json.loads(text)", "load"), Frame(str(lib), 355, "raw_decode")],
    )
    located = locate(failure, str(ws))
    assert summary(located) == [
        ("Inventory.load", "raised in raw_decode (decoder.py), called from here")
    ]


def test_timed_out_test_points_where_it_was_stuck(ws):
    failure = Failure(
        id="t",
        exc_type="Timeout",
        message="test took longer than 2 s",
        timed_out=True,
        frames=[core(ws, "for value in values", "mean")],
    )
    assert summary(locate(failure, str(ws))) == [("mean", "stuck here when the test timed out")]


@pytest.mark.parametrize(
    ("needle", "function", "reason"),
    [
        ('LIMIT = int("3")', "<module>", "module level at shop/core.py:4"),
        ("default = {}", "Inventory", "body of class Inventory"),
    ],
)
def test_module_level_and_class_body_are_not_healable(ws, needle, function, reason):
    failure = Failure(id="collect:tests/test_core.py", exc_type="ValueError", message="x")
    failure.frames = [test_frame(ws, "from shop.core", "<module>"), core(ws, needle, function)]
    located = locate(failure, str(ws))
    assert not located.healable and located.suspects == []
    assert reason in located.reason


def test_module_level_lambda_is_not_healable(ws):
    (ws / "shop" / "keys.py").write_text("BY_SIZE = lambda x: x[1]\nBY_SIZE((1,))\n")
    failure = Failure(id="t", exc_type="IndexError", message="tuple index out of range")
    failure.frames = [Frame(str(ws / "shop" / "keys.py"), 1, "<lambda>")]
    located = locate(failure, str(ws))
    assert not located.healable and "module level" in located.reason


def test_failed_assert_suspects_the_functions_called_on_that_line(ws):
    failure = Failure(
        id="tests/test_core.py::test_mean",
        exc_type="AssertionError",
        message="assert 1.0 == 2.5",
        frames=[test_frame(ws, "assert mean(data) == 2.5", "test_mean")],
        test_path=str(ws / "tests" / "test_core.py"),
        test_line=line_of(TEST, "assert mean(data) == 2.5"),
        covered=[key(ws, "def median"), key(ws, "def mean")],
    )
    run = RunResult(
        root=str(ws),
        failures=[failure],
        tests=[Outcome("tests/x.py::test_median", "passed", covered=[key(ws, "def median")])],
    )
    located = locate(failure, str(ws), run)
    assert summary(located) == [
        ("mean", "called on the failing line tests/test_core.py:9"),
        ("median", "ran during the failing test (Ochiai 0.71)"),
    ]


def test_without_coverage_names_resolve_through_imports(ws):
    failure = Failure(
        id="tests/test_core.py::test_mean",
        exc_type="AssertionError",
        message="assert 1.0 == 2.5",
        frames=[test_frame(ws, "assert mean(data) == 2.5", "test_mean")],
    )
    assert summary(locate(failure, str(ws))) == [
        ("mean", "called on the failing line tests/test_core.py:9")
    ]


def test_method_call_on_failing_line_resolves_through_imports_and_coverage(ws):
    frames = [test_frame(ws, 'assert inv.count("x") == 1', "test_count")]
    failure = Failure(id="t", exc_type="AssertionError", message="assert 0 == 1", frames=frames)
    assert summary(locate(failure, str(ws))) == [
        ("Inventory.count", "called on the failing line tests/test_core.py:14"),
        (
            "Inventory.__init__",
            "computes a value checked on the failing line tests/test_core.py:14",
        ),
    ]
    failure.covered = [key(ws, "def __init__"), key(ws, "def count")]
    assert [s.qualname for s in locate(failure, str(ws)).suspects] == [
        "Inventory.count",
        "Inventory.__init__",
    ]


def test_pytest_raises_mismatch_looks_inside_the_with_block(ws):
    failure = Failure(
        id="tests/test_core.py::test_raises",
        exc_type="Failed",
        message="DID NOT RAISE <class 'KeyError'>",
        frames=[
            test_frame(ws, "with pytest.raises(KeyError)", "test_raises"),
            Frame(str(ws / ".venv" / "site-packages" / "_pytest" / "raises.py"), 9, "__exit__"),
        ],
        covered=[key(ws, "def __init__"), key(ws, "def count")],
    )
    assert summary(locate(failure, str(ws)))[0] == (
        "Inventory.count",
        "called on the failing line tests/test_core.py:19",
    )


def test_unsaved_overlay_text_is_used_instead_of_the_disk(ws):
    path = str(ws / "shop" / "core.py")
    shifted = "# a new first line\n" + SHOP
    failure = Failure(id="t", exc_type="KeyError", message="'x'")
    failure.frames = [Frame(path, line_of(shifted, "have = self.items[name]"), "remove")]
    assert locate(failure, str(ws)).suspects[0].qualname == "Inventory.remove"  # wrong text...
    located = locate(failure, str(ws), overlay={path: shifted})
    assert located.suspects[0].start_line == line_of(shifted, "def remove")


def test_a_broken_unrelated_file_does_not_stop_the_rest(ws):
    (ws / "shop" / "broken.py").write_text("def f(:\n")
    failure = Failure(
        id="t",
        exc_type="AssertionError",
        message="",
        frames=[test_frame(ws, "assert mean(data) == 2.5", "test_mean")],
        covered=[f"{ws / 'shop' / 'broken.py'}:1", key(ws, "def mean"), "garbage"],
    )
    assert [s.qualname for s in locate(failure, str(ws)).suspects] == ["mean"]


def test_no_workspace_frame_is_not_healable(ws):
    failure = Failure(id="script:x.py", exc_type="OSError", message="boom")
    failure.frames = [Frame("/usr/lib/python3.11/os.py", 3, "f"), Frame("<string>", 1, "<module>")]
    located = locate(failure, str(ws))
    assert (
        not located.healable and located.reason == "no frame of the traceback is in the workspace"
    )


def test_assert_in_test_with_nothing_to_blame_is_not_healable(ws):
    (ws / "tests" / "test_plain.py").write_text(dedent("def test_x():\n    assert 1 == 2\n"))
    failure = Failure(id="t", exc_type="AssertionError", message="assert 1 == 2")
    failure.frames = [Frame(str(ws / "tests" / "test_plain.py"), 2, "test_x")]
    located = locate(failure, str(ws))
    assert not located.healable and "raised in the test" in located.reason


def test_values_checked_on_the_line_lead_back_to_the_calls_that_made_them(ws):
    failure = Failure(
        id="tests/test_core.py::test_flow",
        exc_type="AssertionError",
        message="assert 1.5 == 2.5",
        frames=[test_frame(ws, "assert result == 2.5", "test_flow")],
    )
    reason = "computes a value checked on the failing line tests/test_core.py:27"
    assert summary(locate(failure, str(ws))) == [("mean", reason), ("median", reason)]


def test_methods_called_on_the_checked_object_come_before_its_constructor(ws):
    failure = Failure(
        id="tests/test_core.py::test_state",
        exc_type="AssertionError",
        message="assert {} == {'pear': 1}",
        frames=[test_frame(ws, 'assert inv.items == {"pear": 1}', "test_state")],
    )
    names = [qualname for qualname, _ in summary(locate(failure, str(ws)))]
    assert names == ["Inventory.remove", "Inventory.load", "Inventory.__init__"]


def test_a_crash_in_a_file_that_no_longer_parses_is_not_healable(ws):
    (ws / "shop" / "core.py").write_text("def remove(:\n")
    failure = Failure(id="t", exc_type="SyntaxError", message="invalid syntax")
    failure.frames = [Frame(str(ws / "shop" / "core.py"), 1, "<module>")]
    located = locate(failure, str(ws))
    assert not located.healable
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert located.reason == (
        f"shop/core.py:1 does not parse on heal-ls's Python {version} (a syntax error,"
        " undecodable, or a newer Python's syntax): fix it by hand, or run heal-ls on the"
        " project's Python"
    )


def test_old_python_signature_error_names_the_class_on_the_call_line(ws):
    """Python < 3.10 says only `__init__() got ...`: the call line tells whose __init__."""
    failure = Failure(
        id="tests/test_core.py::test_state",
        exc_type="TypeError",
        message="__init__() got an unexpected keyword argument 'size'",
        frames=[test_frame(ws, "inv = Inventory()", "test_state")],
    )
    top = locate(failure, str(ws)).suspects[0]
    assert top.qualname == "Inventory.__init__"
    assert top.reason.startswith("called at tests/test_core.py:")
    assert "its signature refuses" in top.reason


def test_a_protocol_error_blames_the_dunder_that_returned_the_wrong_kind(ws):
    (ws / "shop" / "seq.py").write_text(
        "class Seq:\n    def __iter__(self):\n        return None\n\n\n"
        "def take(it):\n    return list(it)\n"
    )
    seq = str(ws / "shop" / "seq.py")
    failure = Failure(
        id="tests/test_core.py::test_state",
        exc_type="TypeError",
        message="iter() returned non-iterator of type 'NoneType'",
        frames=[test_frame(ws, "inv = Inventory()", "test_state"), Frame(seq, 7, "take")],
        covered=[f"{seq}:2", f"{seq}:6"],
    )
    assert summary(locate(failure, str(ws)))[:2] == [
        ("Seq.__iter__", "__iter__ returned a value of the wrong kind (iter() returned "
         "non-iterator of type 'NoneType')"),
        ("take", "raised here"),
    ]  # fmt: skip


def test_values_flow_through_self_attributes_set_up_in_setUp(ws):
    text = dedent(
        """\
        import unittest
        from shop.core import Inventory, median


        class T(unittest.TestCase):
            def setUp(self):
                self.inv = Inventory()
                self.other = median([1])

            def test_count(self):
                got = self.inv.count("x")
                self.assertEqual(got, 1)
        """
    )
    (ws / "tests" / "test_unit.py").write_text(text)
    path = str(ws / "tests" / "test_unit.py")
    failure = Failure(
        id="tests/test_unit.py::T::test_count",
        exc_type="AssertionError",
        message="0 != 1",
        frames=[Frame(path, 12, "test_count")],
        test_path=path,
        test_line=12,
    )
    names = [s.qualname for s in locate(failure, str(ws)).suspects]
    assert names == ["Inventory.count", "Inventory.__init__"]  # not median: it feeds nothing


def test_a_module_this_python_cannot_parse_is_named_when_nothing_is_found(ws):
    """A 3.13 project's `type` aliases do not parse on an older heal-ls: say so, not just
    "no function could be tied to it"."""
    (ws / "shop" / "core.py").write_text("type Stock = dict[str, int]\n" + SHOP)
    frame = test_frame(ws, "assert inv.count", "test_count")  # failed in the test
    failure = Failure("f1", "AssertionError", "", [frame], test="tests/test_core.py::test_count")
    failure.test_path, failure.test_line = frame.path, frame.line
    failure.covered = [f"{ws / 'shop' / 'core.py'}:{line_of(SHOP, 'def count') + 1}"]
    located = locate(failure, str(ws))
    assert not located.healable and located.suspects == []
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert f"heal-ls runs on Python {version}, which cannot parse shop/core.py (line 1" in (
        located.reason
    )


def test_a_signature_error_finds_the_def_a_package_re_exports(ws):
    """`import shop` then `shop.restock(n=1)`: the def lives in shop/stock.py, reached through
    `from .stock import *` in shop/__init__.py, and it never ran (the call was refused)."""
    (ws / "shop" / "__init__.py").write_text("from .stock import *  # noqa\n")
    (ws / "shop" / "stock.py").write_text("def restock(count):\n    return count\n")
    (ws / "tests" / "test_stock.py").write_text(
        "import shop\n\n\ndef test_restock():\n    assert shop.restock(n=1) == 1\n"
    )
    path = str(ws / "tests" / "test_stock.py")
    failure = Failure(
        id="tests/test_stock.py::test_restock",
        exc_type="TypeError",
        message="restock() got an unexpected keyword argument 'n'",
        frames=[Frame(path, 5, "test_restock")],
        test_path=path,
        test_line=5,
    )
    top = locate(failure, str(ws)).suspects[0]
    assert (top.path, top.qualname) == (str(ws / "shop" / "stock.py"), "restock")
    assert "its signature refuses" in top.reason


def test_a_failed_check_of_a_caught_exception_blames_the_function_that_raised_it(ws):
    """`pytest.raises(KeyError, match=...)` did not match: pytest's AssertionError is raised in
    the test, the KeyError in Inventory.remove, called through Inventory.load."""
    failure = Failure(
        id="tests/test_core.py::test_raises",
        exc_type="AssertionError",
        message="Regex pattern did not match.",
        frames=[test_frame(ws, "with pytest.raises(KeyError)", "test_raises")],
        covered=[key(ws, "def count"), key(ws, "def __init__")],
        caught=[core(ws, "self.items = json.loads", "load"), core(ws, "have = self", "remove")],
    )
    assert summary(locate(failure, str(ws)))[:2] == [
        ("Inventory.remove", "raised the exception the failing check is about"),
        ("Inventory.load", "on the path that raised the checked exception"),
    ]


def test_a_raise_helper_passes_the_blame_to_the_caller_that_chose_to_raise(ws):
    """`fail(message)` always raises: the caller decided to raise (and what to say)."""
    (ws / "shop" / "checks.py").write_text(
        "def fail(message):\n    raise ValueError(message)\n\n\n"
        "def check(count):\n    if count < 5:\n        fail('too few')\n    return count\n\n\n"
        "def strict(count):\n    if count < 0:\n        raise ValueError('negative')\n    return count\n"
    )
    checks = str(ws / "shop" / "checks.py")
    outer = test_frame(ws, "inv = Inventory()", "test_state")
    failure = Failure(
        id="tests/test_core.py::test_state",
        exc_type="ValueError",
        message="too few",
        frames=[outer, Frame(checks, 7, "check"), Frame(checks, 2, "fail")],
    )
    assert summary(locate(failure, str(ws)))[:2] == [
        ("check", "called fail, which always raises: the raise was chosen here"),
        ("fail", "raised here"),
    ]
    failure.frames = [outer, Frame(checks, 7, "check"), Frame(checks, 13, "strict")]
    assert summary(locate(failure, str(ws)))[:2] == [  # raises only when its own check says so
        ("strict", "raised here"),
        ("check", "on the failing call path"),
    ]
