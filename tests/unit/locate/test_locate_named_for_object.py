"""locate() after `'DictComp' object has no attribute 'elt'` raised in `visit_DictComp` (issue
22, ranking): the def is named for the kind of object it lacked an attribute of, so it was
handed what it handles and asked for the wrong attribute; the frames that made and passed the
object down do not come before it, as they do for another def (value_origin)."""

from heal_ls.locate import locate
from heal_ls.models import Frame

from tests.helpers.locate import failed_run, keys_of, line_of, write_project

FINDER = """\
class DictComp:
    def __init__(self, key, value):
        self.key = key
        self.value = value


class Finder:
    def visit(self, node):
        return getattr(self, "visit_" + type(node).__name__)(node)

    def visit_DictComp(self, node):
        return [node.elt]


def walk(finder, tree):
    return finder.visit(tree)


def find(source):
    tree = DictComp(*source.split(":"))
    return walk(Finder(), tree)
"""
TEST = """\
from finder import find


def test_dict_comprehension():
    assert find("k:v") == ["k", "v"]
"""


def ranked(tmp_path, name: str = "visit_DictComp") -> list[str]:
    finder = FINDER.replace("visit_DictComp", name)
    here, test_path = write_project(tmp_path, "finder", finder, TEST)
    keys = keys_of(here, finder, ("visit", name, "walk", "find", "__init__"))
    tree = "<finder.DictComp object>"
    frames = [
        Frame(here, line_of(finder, "return walk("), "find", {"source": "'k:v'", "tree": tree}),
        Frame(here, line_of(finder, "return finder.visit"), "walk", {"tree": tree}),
        Frame(here, line_of(finder, "return getattr("), "visit", {"node": tree}),
        Frame(here, line_of(finder, "return [node.elt]"), name, {"node": tree}),
    ]
    nodeid = "tests/test_finder.py::test_dict_comprehension"
    error = ("AttributeError", "'DictComp' object has no attribute 'elt'")
    failure, run = failed_run(tmp_path, test_path, nodeid, 5, error, frames, keys)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_the_def_named_for_the_object_asked_the_wrong_attribute(tmp_path):
    assert ranked(tmp_path)[0] == "Finder.visit_DictComp"


def test_a_def_named_for_something_else_blames_the_maker(tmp_path):
    assert ranked(tmp_path, "visit_comprehension")[0] == "find"
