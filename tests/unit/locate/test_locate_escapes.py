"""locate(): the failing check's two texts differ only in how characters are escaped
(`'/?v=1+2'` against `'/?v=1%2B2'`), so the def that called the stdlib's transform chose the
shape (issue 22, ranking: werkzeug's `_urlencode`, furl's `Query.encode`), not the def called on
the failing line that only carried the text on."""

import ast

from heal_ls.locate.escapes import HTML, PERCENT, compared_texts, escaped_alike, escapes_with

from tests.helpers.locate import failing_test, keys_of, line_of, ranked_among_passing, write_project

URLS = """\
from urllib.parse import urlencode


def query_items(query):
    return [(key, value) for key, value in query.items() if value is not None]


def encode_query(query):
    return urlencode(query_items(query), safe="+")


def build(path, query):
    return path + "?" + encode_query(query)
"""
TEST = """\
from urls import build


def test_build_plus():
    assert build("/", {"v": "1+2"}) == "/?v=1%2B2"
"""
ESCAPED = (
    "assert '/?v=1+2' == '/?v=1%2B2'\n  \n  - /?v=1%2B2\n  ?      ^ --\n  + /?v=1+2\n  ?      ^"
)


def ranked(tmp_path, message: str) -> list[str]:
    here, test_path = write_project(tmp_path, "urls", URLS, TEST)
    keys = keys_of(here, URLS, ("query_items", "encode_query", "build"))
    line = line_of(TEST, "assert build")
    failure = failing_test(
        test_path,
        "tests/test_urls.py::test_build_plus",
        line,
        ("AssertionError", message),
        [],
        keys,
    )
    return ranked_among_passing(tmp_path, failure, keys)


def test_the_def_calling_the_transform_comes_before_the_call_on_the_failing_line(tmp_path):
    assert ranked(tmp_path, ESCAPED)[0] == "encode_query"


def test_texts_that_differ_in_more_than_escapes_keep_the_call_on_the_line_first(tmp_path):
    other = "assert '/?v=1+3' == '/?v=1%2B2'\n  \n  - /?v=1%2B2\n  + /?v=1+3"
    assert ranked(tmp_path, other)[0] == "build"


def test_which_escaping_the_texts_differ_in():
    assert escaped_alike("assert 'a%20/b' == 'a%20%2Fb'") is PERCENT
    assert escaped_alike("assert 'a%2fb' == 'a%2Fb'") is PERCENT  # the hex digits' case
    assert escaped_alike("'it&#x27;s' != 'it&#39;s'\n- it&#x27;s\n+ it&#39;s") is HTML  # unittest's
    # escaped once more: that level is added (or missed) anywhere on the way
    assert escaped_alike("assert 'dogs &amp;amp; cats' == 'dogs &amp; cats'") is None
    assert escaped_alike("assert 'a b' == 'a c'") is None
    assert escaped_alike("assert '/?v=1+2' == '/?v=1+2 '") is None  # no escape in either


def test_a_cut_short_comparison_is_read_from_its_diff():
    message = "assert 'http://a...b' == 'http://a...c'\n  \n  - http://a/%2Fb\n  + http://a//b"
    assert compared_texts(message) == ("http://a/%2Fb", "http://a//b")


def test_only_the_stdlib_transform_counts_not_the_same_name_elsewhere():
    module = ast.parse(
        "import shlex\nfrom six.moves import urllib\n"
        "def encode(q, plus):\n    fn = urllib.parse.quote_plus if plus else urllib.parse.quote\n"
        "    return fn(q)\n"
        "def command(q):\n    return shlex.quote(q) + self.quote(q)\n"
    )
    encode, command = (n for n in module.body if isinstance(n, ast.FunctionDef))
    assert escapes_with(module, encode, PERCENT) == ["quote", "quote_plus"]
    assert escapes_with(module, command, PERCENT) == []
