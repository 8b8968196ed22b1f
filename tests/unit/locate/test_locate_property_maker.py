"""locate() when the failing line calls a getter that returns an attribute of its argument
(`get_context(logger)`: `return logger.context`) and a property of ours computes that attribute:
the property made the value the line checks, the getter only read it, so the property comes
first (issue 22, ranking: structlog's `BoundLoggerLazyProxy._context` returning `{}`, read by
`get_context`)."""

import pytest
from heal_ls.locate import locate

from tests.helpers.locate import failed_run, keys_of, line_of, write_project

PROXY = """\
class Proxy:
    def __init__(self, initial):
        self._initial = initial

    @property
    def context(self):
        return {}


def get_context(logger):
    return logger.context
"""
TEST = """\
from proxy import Proxy, get_context


def test_context_is_initial_values():
    assert get_context(Proxy({"a": 1})) == {"a": 1}
"""


def ranked(tmp_path, proxy: str = PROXY) -> list[str]:
    here, test_path = write_project(tmp_path, "proxy", proxy, TEST)
    keys = keys_of(here, proxy, ("__init__", "get_context"))
    decorated = "@property" in proxy  # a def's key is its first decorator's line
    keys.append(f"{here}:{line_of(proxy, '@property' if decorated else 'def context(')}")
    nodeid = "tests/test_proxy.py::test_context_is_initial_values"
    error = ("AssertionError", "assert {} == {'a': 1}")
    failure, run = failed_run(tmp_path, test_path, nodeid, 5, error, [], keys)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_the_property_behind_a_getter_on_the_failing_line_comes_first(tmp_path):
    assert ranked(tmp_path)[:2] == ["Proxy.context", "get_context"]


@pytest.mark.parametrize("plain", ["    def context(self):", "    def context(self, key=None):"])
def test_a_plain_method_of_that_name_is_not_lifted(tmp_path, plain):
    """Reading `logger.context` runs no plain method: it only hands back the bound method."""
    proxy = PROXY.replace("    @property\n    def context(self):", plain)
    assert ranked(tmp_path, proxy)[0] == "get_context"
