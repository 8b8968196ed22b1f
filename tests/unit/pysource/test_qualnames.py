"""One qualname walker (pysource/parse.qualified_nodes): Python's own __qualname__ for every def
and class wherever it sits (if/else, try handlers and finally, with, loops' else, match cases),
and the parts that name defs (the code index, the bench's references, the splice) agree with it."""

from __future__ import annotations

import ast
import sys
import textwrap

import pytest
from heal_ls.bench.reference import find_function, function_text
from heal_ls.locate import index_source
from heal_ls.pysource.parse import qualified_defs, qualified_nodes

MODULE = textwrap.dedent(
    """\
    import sys

    try:
        import json
    except ImportError:
        def load(text):
            return text
    else:
        def load(text):
            return json.loads(text)
    finally:
        def cleanup():
            pass

    with open(__file__) as handle:
        class Reader:
            def read(self):
                def chunk():
                    return 1
                return chunk()

    for _ in range(1):
        pass
    else:
        async def later():
            return 2

    while False:
        pass
    else:
        class Box:
            class Inner:
                def get(self):
                    return 3
    """
)

EXPECTED = [
    "load",
    "load",
    "cleanup",
    "Reader",
    "Reader.read",
    "Reader.read.<locals>.chunk",
    "later",
    "Box",
    "Box.Inner",
    "Box.Inner.get",
]


def python_qualnames(source: str) -> list[str]:
    """The __qualname__ Python records for every def and class (its compiled code objects)."""
    names: list[str] = []

    def visit(code) -> None:
        for const in code.co_consts:
            if hasattr(const, "co_qualname") and const.co_name.isidentifier():
                names.append(const.co_qualname)
                visit(const)

    visit(compile(source, "<m>", "exec"))
    return names


def test_every_def_and_class_has_its_qualname_in_source_order():
    assert [name for name, _ in qualified_nodes(ast.parse(MODULE))] == EXPECTED
    defs = [name for name, node in qualified_defs(ast.parse(MODULE))]
    assert defs == [n for n in EXPECTED if n not in ("Reader", "Box", "Box.Inner")]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="co_qualname is 3.11+")
def test_the_qualnames_are_the_ones_python_records():
    assert sorted(name for name, _ in qualified_nodes(ast.parse(MODULE))) == sorted(
        python_qualnames(MODULE)
    )


def test_match_cases_and_except_star_are_walked():
    source = (
        "match x:\n    case 1:\n        def one(): pass\n    case _:\n        def other(): pass\n"
    )
    assert [n for n, _ in qualified_defs(ast.parse(source))] == ["one", "other"]
    if sys.version_info >= (3, 11):
        source = "try:\n    pass\nexcept* ValueError:\n    def handle(): pass\n"
        assert [n for n, _ in qualified_defs(ast.parse(source))] == ["handle"]


def test_the_code_index_names_what_the_walker_names():
    index = index_source(MODULE)
    defs = [name for name, _ in qualified_defs(ast.parse(MODULE))]
    assert sorted(f.qualname for f in index.functions) == sorted(defs)
    assert [c.qualname for c in index.classes] == ["Reader", "Box", "Box.Inner"]
    get = index.find("Box.Inner.get")
    assert (
        get is not None
        and get.def_line == MODULE.splitlines().index("            def get(self):") + 1
    )


def test_the_bench_finds_a_def_by_the_walkers_qualname():
    tree = ast.parse(MODULE)
    for name, node in qualified_defs(tree):
        found = find_function(tree, name)
        assert found is not None and found.name == node.name
    first = find_function(tree, "load")  # the first of two: the except handler's
    assert first is not None and ast.unparse(first.body[0]) == "return text"
    assert find_function(tree, "Reader.read.chunk") is None  # a local def is `.<locals>.`
    assert find_function(tree, "Box") is None  # a class is not a function
    assert function_text(MODULE, "Reader.read.<locals>.chunk") == "def chunk():\n    return 1\n"
