"""locate() when the failing check reads an object that an earlier statement of the test only
read a property of (`result = req.POST`, then `assert req.body_file.read() == data`): reading
the property ran it, so it is the act whose effect the check reads, as a call there would be
(issue 22, ranking: webob's `BaseRequest.POST` leaving the body file unrewound). A method
handed on unread (`filter(req.matches, names)`) ran nothing there."""

from heal_ls.locate import locate

from tests.helpers.locate import failed_run, line_of, write_project

REQUEST = """\
import io


def parse_pairs(text):
    return dict(pair.split("=") for pair in text.split("&"))


class Request:
    def __init__(self, data):
        self.body_file = io.BytesIO(data)

    @property
    def POST(self):
        return parse_pairs(self.body_file.read().decode())
"""
TEST = """\
import pytest
from request import Request


@pytest.fixture
def req():
    return Request(b"a=1")


def test_post_keeps_the_body(req):
    result = req.POST
    assert req.body_file.read() == b"a=1"
"""


def suspects(tmp_path, request: str = REQUEST):
    here, test_path = write_project(tmp_path, "request", request, TEST)
    decorated = "@property" in request  # a def's key is its first decorator's line
    keys = [
        f"{here}:{line_of(request, 'def parse_pairs(')}",
        f"{here}:{line_of(request, 'def __init__(')}",
        f"{here}:{line_of(request, '@property' if decorated else 'def POST(')}",
    ]
    nodeid = "tests/test_request.py::test_post_keeps_the_body"
    error = ("AssertionError", "assert b'' == b'a=1'")
    line = line_of(TEST, "assert req.body_file")
    failure, run = failed_run(tmp_path, test_path, nodeid, line, error, [], keys)
    return locate(failure, str(tmp_path), run).suspects


def test_the_property_read_before_the_check_is_the_act_it_checks(tmp_path):
    first = suspects(tmp_path)[0]
    assert (first.qualname, first.reason.split(" just")[0]) == ("Request.POST", "called")


def test_a_method_read_but_not_called_is_no_act(tmp_path):
    request = REQUEST.replace("    @property\n", "")
    assert all("just before" not in s.reason for s in suspects(tmp_path, request))
