"""locate/index.py: a line maps to the innermost def containing it, by position only."""

import sys
import types
from pathlib import Path
from textwrap import dedent

import pytest
from heal_ls.locate import index_file, index_source, is_test_file

SOURCE = dedent(
    """\
    import functools
    from typing import overload


    class Shop:
        tax = 0.2

        def __init__(self):
            self.items = {}

        @property
        def size(self):
            return len(self.items)

        @staticmethod
        @functools.lru_cache(maxsize=None)
        def code(name):
            return name.upper()

        @classmethod
        def empty(cls):
            return cls()

        class Till:
            def open(self):
                return [x * 2 for x in range(3)]


    def outer(values):
        key = lambda v: -v

        def inner(v):
            return sorted(values, key=key)[v]

        async def fetch():
            return inner(0)

        class Local:
            def method(self):
                return 1

        return inner


    @overload
    def parse(x: int) -> int: ...
    @overload
    def parse(x: str) -> str: ...
    def parse(x):
        return x


    if functools:
        def pick():
            return 1
    else:
        def pick():
            return 2
    """
)


def at(line_text: str, nth: int = 1) -> int:
    """The 1-based line number of the nth line containing `line_text`."""
    hits = [i for i, line in enumerate(SOURCE.splitlines(), 1) if line_text in line]
    return hits[nth - 1]


def qualname_at(line_text: str, nth: int = 1) -> str | None:
    node = index_source(SOURCE).function_at(at(line_text, nth))
    return node.qualname if node else None


@pytest.mark.parametrize(
    ("line_text", "qualname"),
    [
        ("self.items = {}", "Shop.__init__"),
        ("return len(self.items)", "Shop.size"),
        ("@property", "Shop.size"),
        ("@functools.lru_cache", "Shop.code"),
        ("return name.upper()", "Shop.code"),
        ("return cls()", "Shop.empty"),
        ("return [x * 2 for x in range(3)]", "Shop.Till.open"),
        ("return sorted(values, key=key)[v]", "outer.<locals>.inner"),
        ("key = lambda v: -v", "outer"),
        ("return inner(0)", "outer.<locals>.fetch"),
        ("return 1\n", "outer.<locals>.Local.method"),
        ("return x", "parse"),
        ("tax = 0.2", None),
        ("import functools", None),
    ],
)
def test_line_maps_to_innermost_def(line_text, qualname):
    assert qualname_at(line_text.strip()) == qualname


def test_qualnames_and_first_lines_match_what_python_records():
    """Our qualname and start_line are exactly __qualname__ and co_firstlineno."""
    index = index_source(SOURCE)
    code = compile(SOURCE, "<m>", "exec")
    seen = {}

    def walk(co):
        for const in co.co_consts:
            if isinstance(const, types.CodeType):
                if const.co_name.isidentifier():
                    seen.setdefault((const.co_firstlineno, const.co_name), const)
                walk(const)

    walk(code)
    for node in index.functions:
        co = seen[(node.start_line, node.name)]
        if hasattr(co, "co_qualname"):  # Python >= 3.11
            assert co.co_qualname == node.qualname


def test_decorators_are_inside_the_node_range():
    node = index_source(SOURCE).find("Shop.code")
    assert (node.start_line, node.def_line) == (at("@staticmethod"), at("def code"))
    assert node.start_col == 4 and node.end_line == at("return name.upper()")
    assert node.end_col == len("        return name.upper()")


def test_overload_stubs_and_implementation_are_told_apart_by_position():
    index = index_source(SOURCE)
    stubs = [f for f in index.functions if f.qualname == "parse"]
    assert len(stubs) == 3
    assert index.find("parse") == stubs[-1]  # the implementation wins at run time
    assert index.find("parse", near_line=at("def parse(x: str)")) == stubs[1]
    assert index.function_at(at("def parse(x: int)")) == stubs[0]


def test_two_defs_with_one_name_under_if_else():
    index = index_source(SOURCE)
    first, second = (f for f in index.functions if f.qualname == "pick")
    assert index.function_at(at("return 1", 2)) == first
    assert index.function_at(at("return 2")) == second
    assert index.find("pick", near_line=at("return 2")) == second


def test_async_and_nested_class_in_function():
    index = index_source(SOURCE)
    assert index.find("outer.<locals>.fetch").is_async
    assert not index.find("outer").is_async
    assert index.class_at(at("tax = 0.2")).qualname == "Shop"


def test_crlf_tabs_and_non_ascii_columns():
    text = "class K:\r\n\tdef f(self):\r\n\t\treturn 'héllo' + 'wörld'\r\n"
    node = index_source(text).find("K.f")
    assert (node.start_line, node.start_col, node.end_line) == (2, 1, 3)
    assert node.end_col == len("\t\treturn 'héllo' + 'wörld'")


def test_syntax_errors_raise_and_are_cached_as_such():
    with pytest.raises(SyntaxError):
        index_source("def broken(:\n")
    with pytest.raises(SyntaxError):
        index_source("def broken(:\n")
    with pytest.raises(SyntaxError):
        index_source("x = 1\x00\n")


def test_results_are_cached_by_content():
    assert index_source(SOURCE) is index_source(str(SOURCE))


def test_index_file_returns_none_for_unreadable_or_broken(tmp_path):
    (tmp_path / "broken.py").write_text("def f(:\n")
    (tmp_path / "bad.py").write_bytes(b"# coding: nope\n")
    assert index_file(tmp_path / "broken.py") is None
    assert index_file(tmp_path / "bad.py") is None
    assert index_file(tmp_path / "missing.py") is None


def test_bom_and_cookie_files_keep_positions(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"\xef\xbb\xbfdef f():\n    return 1\n")
    assert index_file(path).function_at(2).qualname == "f"
    path.write_bytes("# coding: latin-1\ndef g():\n    return 'é'\n".encode("latin-1"))
    assert index_file(path).function_at(3).qualname == "g"


def test_very_long_module():
    text = "".join(f"def f{i}(x):\n    y = x + {i}\n    return y\n\n" for i in range(3000))
    index = index_source(text)
    assert len(index.functions) == 3000
    assert index.function_at(4 * 2500 + 2).qualname == "f2500"
    assert index.at_start_line(4 * 10 + 1).qualname == "f10"


@pytest.mark.parametrize(
    ("path", "root", "expected"),
    [
        ("/w/tests/test_x.py", "/w", True),
        ("/w/pkg/x_test.py", "/w", True),
        ("/w/conftest.py", "/w", True),
        ("/w/tests/helpers/data.py", "/w", True),
        ("/w/pkg/testing.py", "/w", False),
        ("/w/pkg/mod.py", "/w", False),
        ("/home/test/w/pkg/mod.py", "/home/test/w", False),
        ("/home/test/w/pkg/mod.py", None, False),
        ("/w/tests/helpers.py", None, True),
    ],
)
def test_is_test_file(path, root, expected):
    assert is_test_file(path, root) is expected


def test_is_test_file_answers_each_root_apart():
    """Answers are kept (the ranking asks of the same files again and again): a file under a
    tests/ folder of one workspace is a plain module of another whose root is that folder."""
    path = Path("/w/tests/pkg/mod.py")
    assert is_test_file(path, "/w") is True
    assert is_test_file(str(path), Path("/w/tests")) is False
    assert is_test_file(path) is False  # its own folder, pkg, is no tests/ folder
    assert is_test_file(path, "/w") is True


PROGRAM = dedent(
    """\
    import asyncio
    import functools


    def traced(func):
        @functools.wraps(func)
        def wrapper(*args):
            return func(*args)

        return wrapper


    class Cart:
        def __init__(self, prices):
            self.prices = prices

        @property
        def total(self):
            return sum(p for p in self.prices)

        @staticmethod
        @traced
        def rounded(x):
            return round(x, 2)

        @classmethod
        def of(cls, *prices):
            return cls([p for p in prices])


    def outer(n):
        square = lambda v: v * v

        def inner(v):
            return {k: square(k) for k in range(v)}

        class Local:
            def size(self):
                return len(inner(n))

        return Local().size()


    async def fetch(n):
        await asyncio.sleep(0)
        return [n] * n


    if True:
        def pick():
            return "first"
    else:
        def pick():
            return "second"


    def main():
        cart = Cart.of(1.5, 2.25)
        return cart.total, Cart.rounded(1.234), outer(3), asyncio.run(fetch(2)), pick()
    """
)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="compares with co_qualname (3.11+)")
def test_every_executed_line_maps_to_the_function_python_runs():
    """Trace PROGRAM: every line Python executes maps to the function running it (lambdas and
    comprehensions belong to their enclosing def; a def line run by its parent, to the parent)."""
    index = index_source(PROGRAM)
    namespace: dict = {}
    exec(compile(PROGRAM, "<program>", "exec"), namespace)
    seen: list[tuple[int, str]] = []

    def tracer(frame, event, arg):
        if frame.f_code.co_filename != "<program>":
            return None
        if event == "line" and frame.f_code.co_name != "<module>":
            seen.append((frame.f_lineno, frame.f_code.co_qualname))
        return tracer

    sys.settrace(tracer)
    try:
        result = namespace["main"]()
    finally:
        sys.settrace(None)
    assert result == (3.75, 1.23, 3, [2, 2], "first")
    assert len(seen) > 20
    classes = {c.qualname for c in index.classes}
    for line, qualname in seen:
        expected = qualname
        if qualname.rsplit(".", 1)[-1].startswith("<"):  # <lambda>, <listcomp>, <genexpr> ...
            expected = qualname.rsplit(".<locals>.", 1)[0]
        node = index.function_for_frame(line, qualname.rsplit(".", 1)[-1])
        got = node.qualname if node else None
        assert got == (None if qualname in classes else expected), (line, qualname)


@pytest.mark.parametrize(
    ("line_text", "code_name", "qualname"),
    [
        ("def inner(v):", "outer", "outer"),  # binding a nested def runs in its parent
        ("def inner(v):", "inner", "outer.<locals>.inner"),
        ("@functools.lru_cache", "Shop", None),  # decorating a method runs in the class body
        ("@property", "Shop", None),
        ("tax = 0.2", "Shop", None),
        ("key = lambda v: -v", "<lambda>", "outer"),
        ("return [x * 2 for x in range(3)]", "<listcomp>", "Shop.Till.open"),
        ("return cls()", "<module>", None),
        ("return cls()", "renamed_since", "Shop.empty"),  # stale text: position decides
        ("return sorted(values, key=key)[v]", "outer", "outer"),
    ],
)
def test_function_for_frame_uses_the_code_name_for_headers(line_text, code_name, qualname):
    node = index_source(SOURCE).function_for_frame(at(line_text), code_name)
    assert (node.qualname if node else None) == qualname
