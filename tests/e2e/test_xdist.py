"""A user's pytest-xdist config (`-n 2` in addopts), for real: the whole suite runs on xdist's
workers and their tests, failures and function coverage reach heal-ls's sealed report through
the controller; focused runs (test ids, candidates) run in pytest's own process (a verified fix
under -n 2: tests/e2e/test_setups.py); and when pytest says tests failed but heal-ls's plugin saw
none, check says so, exit 1.
"""

from __future__ import annotations

import asyncio
import json
import os

import pytest
from heal_ls.testing.runner import run_pytest
from helpers.cli import heal_ls, write

pytestmark = [pytest.mark.e2e, pytest.mark.venv_plugins]

INI = "[pytest]\npythonpath = .\naddopts = -n 2\n"
WHERE = """import os

from calc import double


def test_double():
    assert double(2) == 4


def test_runs_on_a_worker():
    assert os.environ.get("PYTEST_XDIST_WORKER", "").startswith("gw")


def test_runs_in_pytest_itself():
    assert "PYTEST_XDIST_WORKER" not in os.environ
"""


@pytest.fixture
def project(tmp_path):
    write(tmp_path, {"pytest.ini": INI, "calc.py": "def double(x):\n    return x * 2\n"})
    write(tmp_path, {"tests/test_where.py": WHERE})
    return tmp_path


def outcomes(run):
    return {t.nodeid.split("::")[1]: t.outcome for t in run.tests}


def test_the_whole_suite_runs_on_the_workers_and_is_reported_whole(project):
    run = asyncio.run(run_pytest(project))
    assert outcomes(run) == {
        "test_double": "passed",
        "test_runs_on_a_worker": "passed",
        "test_runs_in_pytest_itself": "failed",
    }
    assert (run.passed, run.failed, run.exitstatus) == (2, 1, 1)
    assert run.complete  # one sealed stream, written by the controller for every worker
    [double] = [t for t in run.tests if t.nodeid.endswith("test_double")]
    assert double.covered == [f"{os.path.realpath(project / 'calc.py')}:1"]


# On a worker: one recording import hook (the worker's own), and a Python the test starts records
# into that worker's folder, so its function joins the test's coverage.
ONE_RECORDER = """import os
import subprocess
import sys


def test_one_recorder():
    finders = [f for f in sys.meta_path if type(f).__name__ == "RecordingFinder"]
    assert len(finders) == 1


def test_a_child_runs_double():
    code = "from calc import double; double(1)"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=os.getcwd())
"""


def test_a_worker_records_once_and_its_childrens_calls_too(project):
    write(project, {"tests/test_recorders.py": ONE_RECORDER})
    run = asyncio.run(run_pytest(project))
    assert outcomes(run)["test_one_recorder"] == "passed", run.failures
    [child] = [t for t in run.tests if t.nodeid.endswith("test_a_child_runs_double")]
    assert child.outcome == "passed"
    assert child.covered == [f"{os.path.realpath(project / 'calc.py')}:1"]


def test_a_test_that_kills_its_worker_is_reported_failed(project):
    crash = "import os\n\n\ndef test_worker_dies():\n    os._exit(3)\n"
    write(project, {"tests/test_crash.py": crash})
    run = asyncio.run(run_pytest(project))
    assert outcomes(run)["test_worker_dies"] == "failed"
    [died] = [f for f in run.failures if f.test == "tests/test_crash.py::test_worker_dies"]
    assert died.exc_type == "Crash" and "crashed while running" in died.message
    assert (run.passed, run.failed) == (2, 2) and run.complete


# A plugin on the workers that drops every extra attribute before xdist sends a report on.
DROPS_ROWS = """import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report):
    report.__dict__.pop("heal_ls_rows", None)
"""


def test_tests_whose_worker_sent_no_row_are_still_reported(project):
    write(project, {"conftest.py": DROPS_ROWS})
    run = asyncio.run(run_pytest(project))
    assert outcomes(run) == {
        "test_double": "passed",
        "test_runs_on_a_worker": "passed",
        "test_runs_in_pytest_itself": "failed",
    }
    [failure] = run.failures
    assert failure.exc_type == "AssertionError"
    assert failure.message.startswith("assert 'PYTEST_XDIST_WORKER' not in")
    assert run.complete


def test_a_focused_run_runs_in_pytest_itself(project):
    run = asyncio.run(run_pytest(project, nodeids=["tests/test_where.py"]))
    assert outcomes(run) == {
        "test_double": "passed",
        "test_runs_on_a_worker": "failed",
        "test_runs_in_pytest_itself": "passed",
    }
    assert run.complete


def test_failures_pytest_reports_but_the_plugin_never_saw_are_never_a_pass(project):
    # The plugin is switched off, so no test reaches heal-ls's report: pytest's summary does.
    args = ["check", "--json", "--pytest-args", "-p no:heal_pytest_plugin", str(project)]
    done = heal_ls(*args)
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    assert [f["id"] for f in data["failures"]] == [
        "tests/test_where.py::test_runs_in_pytest_itself"
    ]
    assert data["failed"] == 1
