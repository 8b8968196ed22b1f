"""locate() after a crash (issue 22, ranking): the failing test's name lifts only what the run's
spectrum alone ranked, not a frame of the traceback whose block only the failing tests ran: the
caller that led to the raise is on the path either way (oauthlib's parse_request_body_response
over populate_token_attributes, whose int() refused the response's expires_at)."""

from heal_ls.locate import locate
from heal_ls.models import Frame, RunResult
from heal_ls.models import TestOutcome as Outcome

from tests.helpers.locate import failing_test, keys_of, line_of, write_project

CLIENT = """\
class Client:
    def parse_response(self, body, scope=None):
        response = dict(body)
        if scope:
            response["scope"] = scope
        self.populate(response)
        return response

    def populate(self, response):
        if "expires_at" in response:
            self.expires_at = int(response["expires_at"])
"""
TEST = """\
from client import Client


class ClientTest:
    def test_parse_response_bad_expiry(self):
        Client().parse_response({"expires_at": "soon"}, scope="x")
"""


def test_a_named_caller_on_the_traceback_stays_below_the_raise_site(tmp_path):
    here, test_path = write_project(tmp_path, "client", CLIENT, TEST)
    keys = keys_of(here, CLIENT, ("parse_response", "populate"))
    frames = [
        Frame(here, line_of(CLIENT, "self.populate(response)"), "parse_response"),
        Frame(here, line_of(CLIENT, "int(response"), "populate"),
    ]
    nodeid = "tests/test_client.py::ClientTest::test_parse_response_bad_expiry"
    error = ("ValueError", "invalid literal for int() with base 10: 'soon'")
    scope, expiry = line_of(CLIENT, 'response["scope"]'), line_of(CLIENT, "self.expires_at")
    failure = failing_test(test_path, nodeid, 6, error, frames, keys, {here: [scope, expiry]})
    # the passing tests parse responses without a scope, and some hold an expiry
    passing = [
        Outcome(f"t::test_{n}", "passed", covered=keys, blocks={here: [expiry]}) for n in range(3)
    ]
    run = RunResult(str(tmp_path), 3, 1, failures=[failure], tests=passing)
    located = locate(failure, str(tmp_path), run)
    assert [s.qualname for s in located.suspects] == ["Client.populate", "Client.parse_response"]
    assert located.suspects[0].reason == "raised here"
