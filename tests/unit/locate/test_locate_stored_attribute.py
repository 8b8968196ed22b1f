"""locate(): the failing check reads an attribute as it was stored (issue 22, ranking, class A:
a maker read later). The read computed nothing, so the def that computed and stored the value
comes first: `reset` (which `__init__` calls) made the `tabstops` that `assert
screen.tabstops == {8}` compares (pyte-84565d5f), and a property that only returns `self._token`
is a read, not the `from_header` that chose the token (werkzeug-2051469a)."""

from tests.helpers.locate import ranked_after_check

SCREEN = """\
class Screen:
    def __init__(self, columns):
        self.columns = columns
        self.reset()

    def reset(self):
        self.tabstops = set(range(7, self.columns, 8))

    def draw(self, text):
        return text
"""
SCREEN_TEST = """\
from screen import Screen


def test_tabstops():
    screen = Screen(10)
    assert screen.tabstops == {8}
"""

AUTH = """\
class Authenticate:
    def __init__(self, scheme, token):
        self.scheme = scheme
        self._token = token

    @property
    def token(self):
        \"\"\"The challenge's token.\"\"\"
        return self._token

    @classmethod
    def from_header(cls, value):
        scheme, _, rest = value.partition(" ")
        return cls(scheme, rest.rstrip("="))
"""
AUTH_TEST = """\
from auth import Authenticate


def test_token_padding():
    a = Authenticate.from_header("Token abc=")
    assert a.token == "abc="
"""


SCREEN_DEFS = ("def __init__(", "def reset(")
AUTH_DEFS = ("def __init__(", "@property", "@classmethod")


def ranked(tmp_path, module: str, text: str, test: str, defs: tuple[str, ...]) -> list[str]:
    return ranked_after_check(tmp_path, module, text, test, defs)


def test_the_method_that_computed_the_compared_attribute_comes_first(tmp_path):
    found = ranked(tmp_path, "screen", SCREEN, SCREEN_TEST, SCREEN_DEFS)
    assert found[:2] == ["Screen.reset", "Screen.__init__"]


def test_a_parameter_stored_as_it_came_was_made_by_the_caller(tmp_path):
    text = SCREEN.replace("self.reset()", "self.reset(set())").replace(
        "def reset(self):\n        self.tabstops = set(range(7, self.columns, 8))",
        "def reset(self, tabstops):\n        self.tabstops = tabstops",
    )
    assert ranked(tmp_path, "screen", text, SCREEN_TEST, SCREEN_DEFS)[0] != "Screen.reset"


def test_a_property_that_returns_what_was_stored_is_a_read(tmp_path):
    found = ranked(tmp_path, "auth", AUTH, AUTH_TEST, AUTH_DEFS)
    assert found[0] == "Authenticate.from_header"


def test_a_property_that_computes_its_value_is_still_called_on_the_line(tmp_path):
    text = AUTH.replace("return self._token", "return self._token.strip()")
    found = ranked(tmp_path, "auth", text, AUTH_TEST, AUTH_DEFS)
    assert found[0] == "Authenticate.token"
