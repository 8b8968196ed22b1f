"""locate(): a frame that called the failing test is the runner's, never a suspect (issue 22,
ranking). tornado's `AsyncTestCase._callTestMethod` (in `tornado/testing.py`, the package, not
a test file) calls each test method, so the traceback pytest keeps starts there, above the test's
own frame: it was taken as "on the failing call path" (0.95) and ranked first for
tornado-100d4db2, whose server answered 500."""

from pathlib import Path

from heal_ls.locate import locate
from heal_ls.models import Failure, Frame

from tests.helpers.locate import keys_of, line_of

HARNESS = """\
import unittest


class AsyncTestCase(unittest.TestCase):
    def _callTestMethod(self, method):
        result = method()
        return result
"""
WEB = """\
def parse_date(value):
    return value.strip()


def should_return_304(headers):
    return parse_date(headers) == "x"
"""
TEST = """\
from pkg.testing import AsyncTestCase
from pkg.web import should_return_304


class StaticFileTest(AsyncTestCase):
    def test_static_304(self):
        self.assertEqual(should_return_304(" x "), False)
"""


def project(tmp_path: Path) -> tuple[str, str, str]:
    (tmp_path / "pkg" / "test").mkdir(parents=True)
    for where, text in (("testing.py", HARNESS), ("web.py", WEB), ("test/web_test.py", TEST)):
        (tmp_path / "pkg" / where).write_text(text)
    return tuple(str(tmp_path / "pkg" / p) for p in ("testing.py", "web.py", "test/web_test.py"))


def failure_under_runner(harness: str, web: str, test: str, raising: list[Frame]) -> Failure:
    runner = Frame(harness, line_of(HARNESS, "method()"), "_callTestMethod")
    own = Frame(test, line_of(TEST, "assertEqual"), "test_static_304")
    nodeid = "pkg/test/web_test.py::StaticFileTest::test_static_304"
    return Failure(
        id=nodeid,
        test=nodeid,
        exc_type="AssertionError",
        message="True != False",
        frames=[runner, own, *raising],
        test_path=test,
        test_line=own.line,
        covered=keys_of(web, WEB, ("parse_date", "should_return_304")),
    )


def test_the_runner_that_called_the_failing_test_is_no_suspect(tmp_path):
    harness, web, test = project(tmp_path)
    failure = failure_under_runner(harness, web, test, [])
    suspects = [s.qualname for s in locate(failure, str(tmp_path)).suspects]
    assert "AsyncTestCase._callTestMethod" not in suspects
    assert suspects[0] == "should_return_304"


def test_the_runner_is_no_caller_of_a_raise_in_the_code(tmp_path):
    harness, web, test = project(tmp_path)
    raising = [Frame(web, line_of(WEB, "return parse_date"), "should_return_304")]
    failure = failure_under_runner(harness, web, test, raising)
    located = locate(failure, str(tmp_path)).suspects
    assert located[0].qualname == "should_return_304"
    assert "AsyncTestCase._callTestMethod" not in [s.qualname for s in located]
