"""locate(): a def that only hands its arguments on made nothing (issue 22, ranking). The
failing line checks what `Shelf.walk` returned, and `Shelf.walk` is `return walk(self.store,
top)`: the module's `walk`, which it handed them to, computed the value; it comes first."""

from heal_ls.locate import locate

from tests.helpers.locate import failed_run, line_of, write_project

SHELF = """\
def walk(store, top):
    found = [name for name in store if name.startswith(top)]
    return sorted(found)[1:]


class Shelf:
    def __init__(self, names):
        self.store = list(names)

    def walk(self, top):
        \"\"\"The names under `top`, sorted.\"\"\"
        return walk(self.store, top)
"""
TEST = """\
from shelf import Shelf


def test_walk_lists_every_name():
    result = list(Shelf(["ab", "ac"]).walk("a"))
    assert result == ["ab", "ac"]
"""


def ranked(tmp_path, shelf=SHELF) -> list[str]:
    here, test_path = write_project(tmp_path, "shelf", shelf, TEST)
    method = line_of(shelf, "    def walk(")
    covered = [f"{here}:{method}", f"{here}:{line_of(shelf, 'def walk(store')}"]
    nodeid = "tests/test_shelf.py::test_walk_lists_every_name"
    error = ("AssertionError", "assert ['ac'] == ['ab', 'ac']")
    line = line_of(TEST, "assert result")
    failure, run = failed_run(tmp_path, test_path, nodeid, line, error, [], covered)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_what_a_forwarder_handed_its_arguments_to_comes_first(tmp_path):
    assert ranked(tmp_path)[:2] == ["walk", "Shelf.walk"]


def test_a_method_that_computes_an_argument_it_passes_is_no_forwarder(tmp_path):
    """`Shelf.walk` passes `top.lower()`: it made part of what `walk` was given, and keeps
    its place in data-flow order."""
    shelf = SHELF.replace("walk(self.store, top)", "walk(self.store, top.lower())")
    assert ranked(tmp_path, shelf)[:2] == ["Shelf.walk", "walk"]
