"""locate() when the failing check is about a double the test put into our code (issue 22,
class T; locate/doubles.py): a recorder set in place of a name of ours (twine's
`monkeypatch.setattr(check, "_check_file", recorder)`, then `len(recorder.calls) > 1`): the
def that calls that name first, not the act the test called; a Mock handed in among options
(kombu's `transport_options={..., 'errback': errback}`, then `errback.assert_called()`): the
def that reads those options' keys first; an assert in the test's own fake that our code
called (jsonschema's `fake_urlopen` refusing a plain string), chained below the reported raise:
the def that called the fake first."""

import pytest
from heal_ls.models import Chained, Frame

from tests.helpers.locate import failing_test, keys_of, line_of, ranked_among_passing, write_project

CHECK = """\
def _check_file(name):
    return True


def check(dists):
    return [_check_file(name) for name in dists]


def main(args):
    return check(args)
"""
RECORDED = """\
import check as checking


def test_check(monkeypatch):
    recorder = Recorder()
    monkeypatch.setattr(checking, "_check_file", recorder)
    checking.main(["*"])
    assert len(recorder.calls) > 1
"""


def ranked_at_check(tmp_path, module: str, text: str, test: str, defs, message: str):
    """What locate() ranks when the test `test_<module>` failed its last line with an
    AssertionError saying `message`, having run `defs` of `module`, as passing tests did."""
    here, test_path = write_project(tmp_path, module, text, test)
    covered = keys_of(here, text, defs)
    nodeid = f"tests/test_{module}.py::test_{module}"
    at = len(test.splitlines())
    failure = failing_test(test_path, nodeid, at, ("AssertionError", message), [], covered)
    return ranked_among_passing(tmp_path, failure, covered)


def ranked_check(tmp_path, test: str) -> list[str]:
    return ranked_at_check(tmp_path, "check", CHECK, test, ("main", "check"), "assert 1 > 1")


CONNECT = """\
def options(opts):
    conn = {}
    if 'retries' in opts:
        conn['retries'] = opts['retries']
    return conn


def retry(retries=1, errback=None):
    return retries


def connect(opts):
    return retry(**options(opts))
"""
HANDED = """\
from unittest.mock import Mock

from connect import connect


def test_connect():
    errback = Mock()
    connect({'retries': 2, 'errback': errback})
    errback.assert_called()
"""


def ranked_connect(tmp_path, test: str) -> list[str]:
    defs = ("connect", "options", "retry")
    message = "Expected 'mock' to have been called."
    return ranked_at_check(tmp_path, "connect", CONNECT, test, defs, message)


# The double the check reads lifts the def that called the name it replaced, or read the
# options it came in; a check that reads no double (the result, a None handed in) lifts
# nothing: the act the test called before the check stays first.
@pytest.mark.parametrize(
    ("ranked", "test", "first"),
    [
        (ranked_check, RECORDED, "check"),
        (ranked_check, RECORDED.replace("recorder.calls", "checking.main(['*'])"), "main"),
        (ranked_connect, HANDED, "options"),
        (ranked_connect, HANDED.replace("'errback': errback", "'errback': None"), "connect"),
    ],
    ids=["recorder-read", "result-read", "mock-handed-read", "none-handed"],
)
def test_the_def_the_checked_double_came_in_by_comes_first(tmp_path, ranked, test, first):
    assert ranked(tmp_path, test)[0] == first


FETCH = """\
def fetch(uri):
    with urlopen(uri) as response:
        return response.read()


def resolve(uri):
    try:
        return fetch(uri)
    except Exception as error:
        raise LookupError(uri) from error


def urlopen(uri):
    return open(uri)
"""
FAKED = """\
import fetch as fetching


def test_remote(monkeypatch):
    def fake_urlopen(request):
        assert isinstance(request, Request)
    monkeypatch.setattr(fetching, "urlopen", fake_urlopen)
    fetching.resolve("http://bar")
"""


def ranked_fetch(tmp_path, exc_type: str) -> list[str]:
    here, test_path = write_project(tmp_path, "fetch", FETCH, FAKED)
    covered = keys_of(here, FETCH, ("resolve", "fetch"))
    nodeid = "tests/test_fetch.py::test_remote"
    raised = [Frame(here, line_of(FETCH, "raise LookupError"), "resolve")]
    at = line_of(FAKED, "fetching.resolve(")
    failure = failing_test(test_path, nodeid, at, ("LookupError", "http://bar"), raised, covered)
    fake = Frame(test_path, line_of(FAKED, "assert isinstance"), "fake_urlopen")
    called = Frame(here, line_of(FETCH, "with urlopen"), "fetch")
    failure.chain = [Chained(exc_type, "'http://bar' is not a Request", [called, fake], True)]
    return ranked_among_passing(tmp_path, failure, covered)


def test_the_caller_of_a_fake_whose_assert_failed_comes_first(tmp_path):
    assert ranked_fetch(tmp_path, "AssertionError")[0] == "fetch"


def test_a_fake_that_raised_on_purpose_lifts_nothing(tmp_path):
    """Not an assert: the test made its fake raise (a side effect), the raise site stays."""
    assert ranked_fetch(tmp_path, "OSError")[0] == "resolve"
