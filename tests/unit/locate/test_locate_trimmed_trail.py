"""locate(): a def refused the argument it names (`parse(code)` raising with `code` in its
message), and the calls between only passed it on (issue 22, ranking, class A: the fault made a
value and returned). A constructor called by its class's name (`PythonCode(text)`) passes on
its arguments as its def names them (those before a `**options` too), and a trim
(`code.lstrip()`) hands on the same content:
the def that computed the text (`Tag.parse_attributes`, mako's `_parse_attributes`) comes
first."""

from heal_ls.locate import locate
from heal_ls.models import Frame

from tests.helpers.locate import failed_run, line_of, write_project

TAGS = """\
import re


def parse(code):
    if code.count("{") != code.count("}"):
        raise SyntaxError(f"unbalanced: {code}")
    return code


class PythonCode:
    def __init__(self, code, **options):
        self.tree = parse(code.lstrip(), **options)


class Tag:
    def __init__(self, text):
        self.code = self.parse_attributes(text)

    def parse_attributes(self, text):
        m = re.match(r"^\\${(.+?)}", text)
        return PythonCode(m.group(1).rstrip(), name="tag")
"""
TEST = """\
from tags import Tag


def test_dict_expression():
    assert Tag("${ {'a': 1} }").code
"""


def ranked(tmp_path, tags: str = TAGS) -> list[str]:
    here, test_path = write_project(tmp_path, "tags", tags, TEST)
    defs = ("parse(", "__init__(self, code", "__init__(self, text", "parse_attributes(")
    keys = [f"{here}:{line_of(tags, f'def {needle}')}" for needle in defs]
    code = "\" {'a': 1\""
    crash_frames = [
        Frame(here, line_of(tags, "self.code = self"), "__init__", {"text": "'${...}'"}),
        Frame(here, line_of(tags, "return PythonCode("), "parse_attributes"),
        Frame(here, line_of(tags, "self.tree = parse("), "__init__", {"code": code}),
        Frame(here, line_of(tags, "raise SyntaxError"), "parse", {"code": code}),
    ]
    nodeid = "tests/test_tags.py::test_dict_expression"
    error = ("SyntaxError", "unbalanced: {'a': 1")
    failure, run = failed_run(tmp_path, test_path, nodeid, 5, error, crash_frames, keys)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_the_def_that_computed_the_refused_text_comes_first(tmp_path):
    assert ranked(tmp_path)[:3] == ["Tag.parse_attributes", "PythonCode.__init__", "parse"]


def test_a_constructor_that_computes_the_text_itself_is_its_maker(tmp_path):
    """`code.replace(...)` is no trim: `PythonCode.__init__` made what `parse` refused."""
    tags = TAGS.replace("code.lstrip()", 'code.replace("}", "")')
    assert ranked(tmp_path, tags)[:2] == ["PythonCode.__init__", "parse"]
