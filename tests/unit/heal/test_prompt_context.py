"""prompt_context finds a function's callees wherever the def sits (under if/try/with too)."""

from heal_ls.heal.prompt_context import related_lines

MODULE = '''\
import sys

RATE = 3


def helper(x):
    """Scale x."""
    return x * RATE


if sys.version_info >= (3, 8):

    def under_if(x):
        return helper(x) + 1

else:

    def under_if(x):
        return helper(x)


try:
    import json
except ImportError:  # pragma: no cover
    json = None
else:

    class Loader:
        def load(self, text):
            return self.parse(text)

        def parse(self, text):
            """Parse JSON text."""
            return json.loads(text)


with open(__file__) as _f:

    def under_with(x):
        return helper(x)
'''


def test_a_def_under_if_keeps_its_callees_and_globals():
    callees, names = related_lines(MODULE, "under_if")
    assert callees == ["def helper(x)  # Scale x."]
    assert names == []


def test_a_method_of_a_class_under_try_else_keeps_its_callees():
    callees, _ = related_lines(MODULE, "Loader.load")
    assert callees == ["def Loader.parse(self, text)  # Parse JSON text."]


def test_a_def_under_with_keeps_its_callees():
    assert related_lines(MODULE, "under_with")[0] == ["def helper(x)  # Scale x."]


def test_a_helper_under_if_is_offered_as_callee():
    module = "import os\nif os.name:\n    def inner():\n        return 1\n\ndef outer():\n    return inner()\n"
    assert related_lines(module, "outer")[0] == ["def inner()"]
