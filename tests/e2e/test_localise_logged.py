"""What the code logged blames the function that raised it, on a small project run for real.

The app's dispatcher catches what a handler raised, logs the traceback (`log.exception`) and
answers 500: the test sees `500 == 200`, and the raise is only in the failure's captured log.
A second test reads `caplog.records` and finds a warning that should not come: the record's
repr on the `where` line names the file and line of the logging call. A third test's handler
raises on purpose: its logged raise is the test's own, no evidence against the app.
"""

import asyncio
from pathlib import Path

import pytest
from heal_ls.diagnose import diagnose
from heal_ls.testing.options import RunOptions
from helpers.projects import suspects_of, write_files

FILES = {
    "pytest.ini": "[pytest]\npythonpath = src\ntestpaths = tests\n",
    "src/app/__init__.py": "",
    "src/app/server.py": """
        import logging

        log = logging.getLogger("app.server")


        def parse_since(value):
            day, month = value.split("/")
            return int(day), int(month)


        def static_file(request):
            since = request.get("since")
            if since and parse_since(since) > (1, 1):
                return 304
            return 200


        def trailer(data):
            if data.endswith("\\r\\n"):
                log.warning("Skipping data after last boundary")
            return data.strip()


        def dispatch(handler, request):
            try:
                return handler(request)
            except Exception:
                log.exception("Uncaught exception %s", request)
                return 500
    """,
    "tests/test_server.py": """
        from app.server import dispatch, static_file, trailer


        def test_valid_since():
            assert dispatch(static_file, {"since": "2/3"}) == 304


        def test_invalid_since_is_ignored():
            assert dispatch(static_file, {"since": "!nv@l!d"}) == 200


        def test_no_warning(caplog):
            assert trailer("hello") == "hello"
            assert trailer("hello\\r\\n") == "hello"
            assert len(caplog.records) == 0


        def broken(request):
            raise RuntimeError("on purpose")


        def test_a_broken_handler_gets_a_500_as_it_should():
            assert dispatch(broken, {}) == 200
    """,
}


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    project: Path = write_files(tmp_path_factory.mktemp("logged"), FILES)
    return asyncio.run(diagnose(project, RunOptions(test_timeout=60)))


def test_the_function_whose_raise_the_server_logged_ranks_first(checked):
    found = suspects_of(checked, "test_invalid_since_is_ignored")
    assert [s.qualname for s in found[:3]] == ["parse_since", "static_file", "dispatch"]
    assert found[0].reason == "raised the ValueError the code caught and logged during the test"


def test_the_function_that_logged_the_checked_record_ranks_first(checked):
    found = suspects_of(checked, "test_no_warning")
    assert found[0].qualname == "trailer"
    assert found[0].reason.startswith("logged the record the failing check reads")


def test_a_raise_in_the_tests_own_handler_blames_nothing_of_the_app(checked):
    found = suspects_of(checked, "test_a_broken_handler_gets_a_500_as_it_should")
    assert all("logged" not in s.reason for s in found)


def test_the_failure_keeps_the_captured_log(checked):
    run, _ = checked
    (failure,) = [f for f in run.failures if f.id.endswith("test_invalid_since_is_ignored")]
    assert "--- Captured log call ---\nERROR    app.server:server.py:" in failure.stdout
    assert "ValueError: not enough values to unpack" in failure.stdout
