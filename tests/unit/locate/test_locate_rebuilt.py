"""locate(): a constructor of ours refused the call with which copy or pickle rebuilt an object
(issue 22, class M: schwifty's `BBAN.__new__() missing 1 required positional argument`, trio's
`Cancelled has no public constructor`). Python's copy machinery chose the arguments, so the fix
is the method saying how to rebuild the copied object's class: that class and its bases of ours
come first, above the refused constructor, each healable by adding the method."""

import copy
import copyreg

from heal_ls.locate import locate
from heal_ls.models import Frame, RunResult

from tests.helpers.locate import failing_test, line_of, write_project

CODES = """\
class Base(str):
    def __new__(cls, value, **kwargs):
        return super().__new__(cls, value.upper())

    def __repr__(self):
        return f"<{type(self).__name__}={self!s}>"


class Code(Base):
    def __new__(cls, country, value):
        return super().__new__(cls, value)

    def __init__(self, country, value):
        self.country = country


class Account(Base):
    def __init__(self, value):
        self.code = Code("CH", value)


class Private(type):
    def __call__(cls, *args, **kwargs):
        raise TypeError(f"{cls.__module__}.{cls.__qualname__} has no public constructor")

    def _create(cls, *args, **kwargs):
        return super().__call__(*args, **kwargs)


class Token(metaclass=Private):
    pass
"""
TEST = """\
import copy
import pickle

from codes import Account, Code, Token


def test_copy():
    account = Account("ch12")
    copied = copy.deepcopy(account)
    code = Code("CH", "12")
    restored = pickle.loads(pickle.dumps(code))
    token = Token._create()
    assert pickle.loads(pickle.dumps(token))
    copy.copy(Code("12"))
"""
MISSING = "Code.__new__() missing 1 required positional argument: 'value'"


def located(tmp_path, needle: str, error, frames=(), locals_=None, text: str = CODES):
    """The failure `error` raised on the test's line holding `needle`, through `frames`."""
    tmp_path.mkdir(exist_ok=True)
    here, test_path = write_project(tmp_path, "codes", text, TEST)
    line = line_of(TEST, needle)
    covered = [f"{here}:{line_of(text, 'def __new__(cls, value')}"]
    failure = failing_test(test_path, "tests/test_codes.py::test_copy", line, error, [], covered)
    failure.frames[0].locals = locals_ or {}
    failure.frames += [frame(here, text) if callable(frame) else frame for frame in frames]
    return locate(failure, str(tmp_path), RunResult(str(tmp_path), failures=[failure]))


def machinery(name: str, function: str, line: int = 1) -> Frame:
    return Frame({"copy": copy.__file__, "copyreg": copyreg.__file__}[name], line, function)


def test_a_deepcopy_refused_by_a_nested_objects_constructor_names_the_copied_class(tmp_path):
    """`copy.deepcopy(account)` went through copy's `_reconstruct` into the `Code` its
    `__dict__` holds; copyreg's `__newobj__` called `Code.__new__` with one value."""
    frames = [
        machinery("copy", "deepcopy"),
        machinery("copy", "_reconstruct"),
        machinery("copy", "_deepcopy_dict"),
        machinery("copyreg", "__newobj__"),
    ]
    found = located(
        tmp_path, "copy.deepcopy", ("TypeError", MISSING), frames, {"account": "<Account=CH12>"}
    )
    names = [(s.qualname, s.member) for s in found.suspects[:4]]
    assert names == [
        ("Account", "__deepcopy__"),
        ("Base", "__deepcopy__"),
        ("Code", "__deepcopy__"),
        ("Code.__new__", ""),
    ]
    assert found.suspects[0].reason == (
        "lacks __deepcopy__, so the copy.deepcopy at tests/test_codes.py:9 rebuilt its object"
        " through a call Code.__new__ refused"
    )
    assert found.suspects[1].reason.endswith("(a base of Account)")
    assert found.healable


def test_a_pickle_round_trip_on_the_tests_line_names_the_pickled_class(tmp_path):
    """The C pickler leaves no frame: the test's line calls pickle and not `Code` itself."""
    found = located(tmp_path, "restored =", ("TypeError", MISSING), (), {"code": "<Code=12>"})
    assert [(s.qualname, s.member) for s in found.suspects[:3]] == [
        ("Code", "__reduce__"),
        ("Base", "__reduce__"),
        ("Code.__new__", ""),
    ]


def test_a_metaclass_refusing_the_unpickled_class_names_the_class_it_was_called_for(tmp_path):
    refusal = "codes.Token has no public constructor"

    def refused(here, text):
        locals_ = {"cls": "<class 'codes.Token'>", "args": "()", "kwargs": "{}"}
        return Frame(here, line_of(text, "raise TypeError"), "__call__", locals_)

    found = located(
        tmp_path, "assert pickle", ("TypeError", refusal), [refused], {"token": "<Token>"}
    )
    assert [(s.qualname, s.member) for s in found.suspects[:2]] == [
        ("Token", "__reduce__"),
        ("Private.__call__", ""),
    ]


def test_a_rebuilding_method_of_ours_names_the_class_of_its_self(tmp_path):
    """`Base.__deepcopy__` rebuilt a `Code` with one value: `Code` lacks its own; `Base` has
    one (its def, raised in, ran wrong), so it is no class suspect."""
    text = CODES.replace(
        "    def __repr__(self):",
        "    def __deepcopy__(self, memo):\n        return type(self)(str(self))\n\n"
        "    def __repr__(self):",
    )

    def rebuilder(here, text):
        line = line_of(text, "return type(self)(str(self))")
        return Frame(here, line, "__deepcopy__", {"self": "<Code=12>", "memo": "{}"})

    found = located(
        tmp_path,
        "copy.deepcopy",
        ("TypeError", MISSING),
        [machinery("copy", "deepcopy"), rebuilder],
        text=text,
    )
    names = [s.qualname for s in found.suspects[:3]]
    assert names == ["Code", "Code.__new__", "Base.__deepcopy__"]


def test_a_class_saying_how_it_is_pickled_or_a_refused_call_of_the_test_lists_no_class(tmp_path):
    """`Code` defines `__reduce__` (its def ran wrong); `copy.copy(Code("12"))` refused the
    test's own call; a refused call with no round trip on the line is the signature rule's."""
    reduced = CODES.replace(
        "    def __init__(self, country, value):",
        "    def __reduce__(self):\n        return (Code, (str(self),))\n\n"
        "    def __init__(self, country, value):",
    )
    cases = {
        "reduce": ("restored =", {"code": "<Code=12>"}, reduced),
        "own": ("copy.copy(Code", {}, CODES),
        "none": ('code = Code("CH"', {}, CODES),
    }
    for name, (needle, locals_, text) in cases.items():
        found = located(tmp_path / name, needle, ("TypeError", MISSING), (), locals_, text)
        assert found.suspects[0].qualname == "Code.__new__", name
        assert all(s.member == "" for s in found.suspects), name
