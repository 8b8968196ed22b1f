"""locate(): what the code logged while the failing test ran (issue 22, class V).

A server catches what its handler raised, logs the traceback and answers 500 (tornado-100d4db2:
`500 != 200`, the `ValueError` only in `--- Captured log call ---`) or closes the stream
(tornado-c0d3e6df: the test's `StreamClosedError`): the def that raised the logged exception is
a second raise site. A check on `caplog.records` (python-multipart-c4fe4d3c: `assert 1 == 0`,
`where 1 = len([<LogRecord: ..., /abs/multipart.py, 1401, "Skipping ...">])`) names the file
and line of the logging call: the def holding it logged what the check refuses.
"""

from pathlib import Path

from heal_ls.locate import locate
from heal_ls.locate.logged import captured_log, checked_log_calls, logged_raises
from heal_ls.models import Failure, Frame

from tests.helpers.locate import keys_of, line_of, write_project

SERVER = """\
import logging

log = logging.getLogger("server")


def parse_date(value):
    return int(value)


def handle(headers):
    since = parse_date(headers["since"])
    return 304 if since else 200


def respond(headers):
    try:
        return handle(headers)
    except Exception:
        log.exception("Uncaught exception")
        return 500


def skip_trailer(data):
    if data.endswith(b"\\r\\n"):
        log.warning("Skipping data after last boundary")
    return data.rstrip()
"""
TEST = """\
from server import respond, skip_trailer


def test_invalid_since():
    assert respond({"since": "!nv@l!d"}) == 200


def test_no_warning(caplog):
    skip_trailer(b"x\\r\\n")
    assert len(caplog.records) == 0


def handler(headers):
    raise RuntimeError("on purpose")
"""


def logged(traceback_frames: list[tuple[str, int, str]], error: str, level="ERROR") -> str:
    """pytest's captured log of one record logged with a traceback."""
    lines = [f"--- Captured log call ---\n{level:<8} server:server.py:19 Uncaught exception"]
    lines.append("Traceback (most recent call last):")
    for path, line, function in traceback_frames:
        lines += [f'  File "{path}", line {line}, in {function}', "    code"]
    return "\n".join([*lines, error, ""])


def server_failure(tmp_path: Path, stdout: str) -> tuple[Failure, str, str]:
    code, test = write_project(tmp_path, "server", SERVER, TEST)
    line = line_of(TEST, "assert respond")
    return (
        Failure(
            id="tests/test_server.py::test_invalid_since",
            test="tests/test_server.py::test_invalid_since",
            exc_type="AssertionError",
            message="assert 500 == 200",
            frames=[Frame(test, line, "test_invalid_since")],
            test_path=test,
            test_line=line,
            stdout=stdout,
            covered=keys_of(code, SERVER, ("parse_date", "handle", "respond")),
            when="call",
        ),
        code,
        test,
    )


def raised_in(code: str) -> list[tuple[str, int, str]]:
    return [
        (code, line_of(SERVER, "return handle("), "respond"),
        (code, line_of(SERVER, "since = parse_date"), "handle"),
        (code, line_of(SERVER, "return int(value)"), "parse_date"),
        ("/usr/lib/python3.11/somewhere.py", 3, "inner"),
    ]


def test_the_def_that_raised_what_the_server_logged_ranks_first(tmp_path):
    failure, code, _ = server_failure(tmp_path, "")
    failure.stdout = logged(raised_in(code), "ValueError: invalid literal for int(): '!nv@l!d'")
    located = locate(failure, str(tmp_path)).suspects
    assert [s.qualname for s in located[:3]] == ["parse_date", "handle", "respond"]
    assert "caught and logged" in located[0].reason


def test_without_the_log_the_raise_is_unknown(tmp_path):
    failure, _, _ = server_failure(tmp_path, "")
    assert locate(failure, str(tmp_path)).suspects[0].qualname != "parse_date"


def test_a_raise_in_the_tests_own_handler_or_a_warning_is_no_evidence(tmp_path):
    failure, code, test = server_failure(tmp_path, "")
    own = [*raised_in(code)[:1], (test, line_of(TEST, "on purpose"), "handler")]
    failure.stdout = logged(own, "RuntimeError: on purpose")
    assert "caught and logged" not in locate(failure, str(tmp_path)).suspects[0].reason
    failure.stdout = logged(raised_in(code), "ValueError: x", level="WARNING")
    assert locate(failure, str(tmp_path)).suspects[0].qualname != "parse_date"


def test_a_crash_the_test_saw_stays_first_the_logged_raise_next(tmp_path):
    failure, code, _ = server_failure(tmp_path, "")
    failure.stdout = logged(raised_in(code), "ValueError: x")
    crash = Frame(code, line_of(SERVER, "return data.rstrip()"), "skip_trailer")
    failure.frames.append(crash)
    failure.exc_type, failure.message = "StreamClosedError", "Stream is closed"
    located = locate(failure, str(tmp_path)).suspects
    assert [s.qualname for s in located[:2]] == ["skip_trailer", "parse_date"]
    assert located[0].score > located[1].score
    assert "caught and logged" in located[1].reason


def test_the_def_that_logged_the_checked_record_ranks_first(tmp_path):
    code, test = write_project(tmp_path, "server", SERVER, TEST)
    warned = line_of(SERVER, "log.warning")
    record = f'<LogRecord: server, 30, {code}, {warned}, "Skipping data after last boundary">'
    line = line_of(TEST, "len(caplog.records)")
    failure = Failure(
        id="tests/test_server.py::test_no_warning",
        exc_type="AssertionError",
        message=f"assert 1 == 0\n +  where 1 = len([{record}])",
        frames=[Frame(test, line, "test_no_warning")],
        test_path=test,
        test_line=line,
        covered=keys_of(code, SERVER, ("skip_trailer",)),
    )
    located = locate(failure, str(tmp_path)).suspects
    assert located[0].qualname == "skip_trailer"
    assert located[0].reason.startswith("logged the record the failing check reads")


def test_the_records_line_in_caplog_text_names_the_file_the_test_ran():
    message = (
        "assert 'Skipping' not in 'WARNING  server:server.py:24 Skipping data\\n'\n"
        " +  where 'WARNING  server:server.py:24 Skipping data\\n' = <LogCaptureFixture>.text"
    )
    failure = Failure(id="t", exc_type="AssertionError", message=message)
    assert [(c.path, c.line) for c in checked_log_calls(failure)] == [("server.py", 24)]


def test_the_failing_phases_log_is_read_and_the_latest_raise_first():
    first = logged([("/w/a.py", 3, "f")], "KeyError: 'a'")
    second = logged([("/w/b.py", 5, "g")], "ValueError: b").split("\n", 1)[1]
    setup = "--- Captured log setup ---\nERROR    x:y.py:1 boom\n"
    failure = Failure(id="t", exc_type="E", message="", stdout=setup + first + second)
    failure.when = "call"
    assert captured_log(failure).startswith("\nERROR    server:server.py:19")
    raises = logged_raises(failure, "/w")
    assert [(r.exc_type, r.frames[-1].path) for r in raises] == [
        ("ValueError", "/w/b.py"),
        ("KeyError", "/w/a.py"),
    ]


def test_an_environment_error_a_library_raised_is_no_evidence():
    """tldextract-36b90496 (round 13): the sandbox has no network, requests raised
    `ConnectionError` under `_fetch_url`, which logged it and used its bundled list."""
    fetch = [("/w/pkg/cache.py", 3, "_fetch_url"), ("/site-packages/requests/api.py", 9, "get")]
    failure = Failure(id="t", exc_type="E", message="", when="call")
    failure.stdout = logged(fetch, "requests.exceptions.ConnectionError: no network")
    assert logged_raises(failure, "/w") == []
    failure.stdout = logged(fetch[:1], "ConnectionError: our own refusal")
    assert [r.exc_type for r in logged_raises(failure, "/w")] == ["ConnectionError"]
