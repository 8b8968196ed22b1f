"""locate() after a crash on a value the test handed the function it called, passed down
unchanged to a def that tripped over it (issue 22, ranking): `'NoneType' object has no
attribute 'items'` on `units.items()`, `'Token' object has no attribute 'children'` on
`tree.children`. No def below the entry chose the value and the one that crashed was never
written to take it, so the entry the test called, where a conversion or a branch is missing,
comes first. A def that refused the test's value with a raise of its own keeps the blame
(test_locate_act.py). A wrong kind a caller made is that caller's (as a None is); a def named
for the kind (`visit_token`) was handed what it handles and asked for the wrong attribute."""

from heal_ls.locate import locate
from heal_ls.models import Frame

from tests.helpers.locate import (
    failed_run,
    keys_of,
    line_of,
    ranked_after_crash,
    write_project,
)

UNITS = """\
class Token:
    def __init__(self, text):
        self.text = text


def _extract(units):
    return dict(units.items())


def _convert(value, src, dst):
    return value * len(_extract(dst))


def walk(tree):
    return [walk(child) for child in tree.children]


def to(value, other):
    return _convert(value, {"m": 1}, other)


def transform(tree):
    return walk(tree)
"""
TEST = """\
from units import Token, to, transform


def test_to_nothing():
    assert to(5, None) == 5


def test_a_token():
    assert transform(Token("1")) == []
"""


def ranked(tmp_path, test: str, error, frames: list[tuple[str, str, dict]]) -> list[str]:
    defs = ("_extract", "_convert", "walk", "to", "transform")
    return ranked_after_crash(tmp_path, "units", UNITS, TEST, test, error, frames, defs)


def test_the_entry_that_took_a_none_from_the_test_comes_first(tmp_path):
    frames = [
        ("return _convert(value", "to", {"value": "5", "other": "None"}),
        ("len(_extract(dst))", "_convert", {"value": "5", "src": "{'m': 1}", "dst": "None"}),
        ("units.items()", "_extract", {"units": "None"}),
    ]
    error = ("AttributeError", "'NoneType' object has no attribute 'items'")
    assert ranked(tmp_path, "test_to_nothing", error, frames)[:2] == ["to", "_extract"]


def test_the_entry_that_took_a_none_a_builtin_below_refused_comes_first(tmp_path):
    """A builtin the def handed the None refused it, in `re`'s words since 3.11 (3.8-3.10's
    `expected string or bytes-like object` names no kind) or in `open`'s."""
    frames = [
        ("return _convert(value", "to", {"value": "5", "other": "None"}),
        ("len(_extract(dst))", "_convert", {"value": "5", "src": "{'m': 1}", "dst": "None"}),
        ("units.items()", "_extract", {"units": "None"}),
    ]
    for number, message in enumerate(
        (
            "expected string or bytes-like object, got 'NoneType'",
            "expected str, bytes or os.PathLike object, not NoneType",
        )
    ):
        error = ("TypeError", message)
        (tmp_path / str(number)).mkdir()
        located = ranked(tmp_path / str(number), "test_to_nothing", error, frames)
        assert located[:2] == ["to", "_extract"]


def test_the_entry_that_took_an_object_of_a_kind_below_it_lacks_comes_first(tmp_path):
    frames = [
        ("return walk(tree)", "transform", {"tree": "<units.Token object at 0x1>"}),
        ("for child in tree.children", "walk", {"tree": "<units.Token object at 0x1>"}),
    ]
    error = ("AttributeError", "'Token' object has no attribute 'children'")
    located = ranked(tmp_path, "test_a_token", error, frames)
    assert located[:2] == ["transform", "walk"]


MADE = (
    UNITS
    + """

def visit_token(token):
    return token.children


def leaves(text):
    return walk(Token(text))


def visit(text):
    return visit_token(Token(text))
"""
)


def ranked_made(tmp_path, frames: list[tuple[str, str, dict]]) -> list[str]:
    here, test_path = write_project(tmp_path, "units", MADE, TEST)
    keys = keys_of(here, MADE, ("walk", "leaves", "visit_token", "visit"))
    crash = [Frame(here, line_of(MADE, line), name, held) for line, name, held in frames]
    error = ("AttributeError", "'Token' object has no attribute 'children'")
    nodeid = "tests/test_units.py::test_a_token"
    failure, run = failed_run(tmp_path, test_path, nodeid, 8, error, crash, keys)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_the_caller_that_made_an_object_of_the_wrong_kind_comes_first(tmp_path):
    """`leaves` built the Token it handed `walk`, which trips over it: the caller chose it."""
    token = {"tree": "<units.Token object at 0x1>"}
    frames = [
        ("return walk(Token(text))", "leaves", {"text": "'1'"}),
        ("for child in tree.children", "walk", token),
    ]
    assert ranked_made(tmp_path, frames)[:2] == ["leaves", "walk"]


def test_a_def_named_for_the_kind_it_lacked_an_attribute_of_keeps_the_blame(tmp_path):
    """`visit_token` is written for Tokens: it asked one for the wrong attribute."""
    frames = [
        ("return visit_token(Token(text))", "visit", {"text": "'1'"}),
        ("return token.children", "visit_token", {"token": "<units.Token object at 0x1>"}),
    ]
    assert ranked_made(tmp_path, frames)[0] == "visit_token"
