"""`check`'s pytest launcher, started before its run is known (testing/prestart.py): it takes
the run it is sent as its own command line, environment and folder, and is never used for a run
that Python would have started otherwise."""

import json
import os
import sys
from pathlib import Path

import pytest
from heal_ls.testing.invocation import build_pytest_invocation
from heal_ls.testing.options import RunOptions
from heal_ls.testing.prestart import PreStart

pytestmark = pytest.mark.e2e

TESTS = """
import os
import sys


def test_the_run_is_its_own():
    assert os.environ["PRESTART_MARK"] == "sent"
    assert os.getcwd() == os.environ["HEAL_LS_ROOT"]
    assert os.path.samestat(os.fstat(sys.stdin.fileno()), os.stat(os.devnull))
    assert sys.argv[0].endswith("__main__.py")
"""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "test_it.py").write_text(TESTS, encoding="utf-8")
    return str(tmp_path)


def invocation(project):
    options = RunOptions(trace=False, pytest_args=("-s",))  # the test's stdin is the process's
    return build_pytest_invocation(project, options, nodeids=["test_it.py"])


def test_the_launcher_runs_the_invocation_it_is_sent(project, monkeypatch):
    early = PreStart.spawn(sys.executable, project)
    assert early is not None
    inv = invocation(project)
    inv.env["PRESTART_MARK"] = "sent"  # not in its environment when it started
    early.env["PRESTART_MARK"] = "sent"  # (as if it had been: only a run's variables may differ)
    process = early.take(inv.command, inv.env, inv.cwd)
    try:
        assert process is not None
        output = process.stdout.read().decode()
        assert process.wait(timeout=60) == 0, output
        report = Path(inv.report_path).read_text(encoding="utf-8")
        lines = [json.loads(line) for line in report.splitlines()]
        assert [(line["nodeid"], line["outcome"]) for line in lines if line["kind"] == "test"] == [
            ("test_it.py::test_the_run_is_its_own", "passed")
        ]
    finally:
        inv.cleanup()
    again = invocation(project)
    assert early.take(again.command, again.env, again.cwd) is None  # once
    again.cleanup()


def test_a_run_python_would_start_otherwise_is_not_sent(project, monkeypatch):
    early = PreStart.spawn(sys.executable, project)
    assert early is not None
    launcher = early.process
    monkeypatch.setenv("PYTHONHASHSEED", "7")  # read as Python starts: the run needs its own
    inv = invocation(project)
    try:
        assert not early.fits(inv.command, inv.env, inv.cwd)
        assert early.take(inv.command, inv.env, inv.cwd) is None
        assert launcher is not None and launcher.returncode is not None  # killed
    finally:
        inv.cleanup()


def test_a_launcher_sent_nothing_exits_without_running(project):
    early = PreStart.spawn(sys.executable, project)
    assert early is not None and early.process is not None
    process = early.process
    process.stdin.close()
    assert process.wait(timeout=60) == 0
    assert process.stdout.read() == b""
    assert not os.path.exists(os.path.join(project, ".pytest_cache"))
    early.close()
