"""What a failing test line calls: explicit calls, factory results and the dunders syntax calls."""

import ast

from heal_ls.locate.calls import call_names, matches, wrappers_of
from heal_ls.locate.flow import names_feeding_line
from heal_ls.locate.index import index_source

FACTORY = """
def cached(cache):
    def decorator(func):
        def wrapper(*args):
            return func(*args)
        return wrapper
    return decorator
"""


def _names(line: str) -> list[str]:
    return call_names([ast.parse(line)])


def test_calling_a_factory_result_names_the_factory_nested_defs():
    names = _names("wrapped = cached(c)(f)")
    assert names == ["cached.<locals>.*", "cached"]
    functions = {f.qualname: f for f in index_source(FACTORY.lstrip()).functions}
    assert matches(names[0], functions["cached.<locals>.decorator"])
    assert not matches(names[0], functions["cached.<locals>.decorator.<locals>.wrapper"])
    assert not matches(names[0], functions["cached"])


def test_subscripts_membership_and_len_name_their_dunders():
    assert _names("del cache[3]") == ["__delitem__"]
    assert _names("x = cache[k]") == ["__getitem__"]
    assert _names("cache[k] = v") == ["__setitem__"]
    assert _names("assert k in cache and len(cache) == 2") == ["__contains__", "len", "__len__"]


def test_state_changes_before_the_checked_line_feed_it():
    tree = ast.parse(
        "def test():\n    c = C()\n    c[1] = 2\n    del c[0]\n    assert len(c) == 1\n"
    )
    assert names_feeding_line(tree, 5) == ["__delitem__", "__setitem__", "C"]


def test_a_method_the_test_decorates_runs_the_workspace_wrapper():
    tree = ast.parse("class C:\n    @cached(key)\n    def get(self):\n        return 1\n")
    names = wrappers_of(tree, ["get", "assertEqual"])
    assert names == ["cached.<locals>.**"]
    functions = {f.qualname: f for f in index_source(FACTORY.lstrip()).functions}
    assert matches(names[0], functions["cached.<locals>.decorator.<locals>.wrapper"])
    assert not matches(names[0], functions["cached"])


def test_a_loop_target_was_made_by_the_iterators_next():
    """`for row in Table(...)`: `row` is what `__next__` returned from what `__iter__` made
    (`async for`: `__anext__`, `__aiter__`); the iterable's own calls come first."""
    tree = ast.parse("def test():\n    for row in Table(1):\n        assert row.ok\n")
    assert names_feeding_line(tree, 3) == ["Table", "__next__", "__iter__"]
    tree = ast.parse(
        "async def test():\n    async for attempt in Retrying(3):\n        with attempt:\n"
        "            pass\n"
    )
    assert names_feeding_line(tree, 3) == ["Retrying", "__anext__", "__aiter__"]


def test_a_loop_in_set_up_made_its_target_too():
    """A loop of the test class's setUp feeds the failing line as one in the test does (the
    loops are looked for in the test and its set-ups only, not the whole module)."""
    tree = ast.parse(
        "class TestRows:\n"
        "    def setUp(self):\n"
        "        for self.row in Table(1):\n"
        "            pass\n"
        "    def test_ok(self):\n"
        "        assert self.row.ok\n"
    )
    assert names_feeding_line(tree, 6) == ["Table", "__next__", "__iter__"]
