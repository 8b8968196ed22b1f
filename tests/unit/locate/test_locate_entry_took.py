"""locate() after a crash on a value the test handed the function it called, passed down
unchanged to a def that tripped over it (issue 22, ranking): `'NoneType' object has no
attribute 'items'` on `units.items()`, `'Token' object has no attribute 'children'` on
`tree.children`. No def below the entry chose the value and the one that crashed was never
written to take it, so the entry the test called, where a conversion or a branch is missing,
comes first. A def that refused the test's value with a raise of its own keeps the blame
(test_locate_act.py)."""

from heal_ls.locate import locate
from heal_ls.models import Frame

from tests.helpers.locate import failed_run, keys_of, line_of, write_project

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
    """The qualnames locate() ranks when `test` raised `error` through `frames` (needle of the
    line, function, recorded locals), outermost first."""
    here, test_path = write_project(tmp_path, "units", UNITS, TEST)
    keys = keys_of(here, UNITS, ("_extract", "_convert", "walk", "to", "transform"))
    crash = [Frame(here, line_of(UNITS, line), name, held) for line, name, held in frames]
    nodeid = f"tests/test_units.py::{test}"
    failure, run = failed_run(tmp_path, test_path, nodeid, 5, error, crash, keys)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_the_entry_that_took_a_none_from_the_test_comes_first(tmp_path):
    frames = [
        ("return _convert(value", "to", {"value": "5", "other": "None"}),
        ("len(_extract(dst))", "_convert", {"value": "5", "src": "{'m': 1}", "dst": "None"}),
        ("units.items()", "_extract", {"units": "None"}),
    ]
    error = ("AttributeError", "'NoneType' object has no attribute 'items'")
    assert ranked(tmp_path, "test_to_nothing", error, frames)[:2] == ["to", "_extract"]


def test_the_entry_that_took_an_object_of_a_kind_below_it_lacks_comes_first(tmp_path):
    frames = [
        ("return walk(tree)", "transform", {"tree": "<units.Token object at 0x1>"}),
        ("for child in tree.children", "walk", {"tree": "<units.Token object at 0x1>"}),
    ]
    error = ("AttributeError", "'Token' object has no attribute 'children'")
    located = ranked(tmp_path, "test_a_token", error, frames)
    assert located[:2] == ["transform", "walk"]
