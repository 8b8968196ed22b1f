"""heal-ls's pytest runs end at once after pytest returns (agent/heal_pytest_main.py), and
nothing a test can see differs from `python -m pytest`: sys.argv[0], the exit code, atexit
handlers, threads a test left running. Only the teardown of the modules, which no test sees,
is skipped."""

import subprocess
import sys
import textwrap

import pytest
from heal_ls.testing.options import RunOptions
from heal_ls.testing.runner import run_pytest

pytestmark = pytest.mark.e2e

TESTS = """
import atexit
import os
import sys
import threading
import time

OUT = os.environ["QUICK_EXIT_OUT"]


def mark(name, text=""):
    with open(os.path.join(OUT, name), "w") as handle:
        handle.write(text)


class Teardown:
    # a module global, freed when the interpreter tears the modules down (by then the module's
    # names may be gone: what __del__ needs is bound here)
    def __del__(self, open=open, path=os.path.join(OUT, "teardown")):
        with open(path, "w"):
            pass


KEPT = Teardown()
atexit.register(mark, "atexit")


def late():
    time.sleep(0.5)
    mark("thread")


def test_argv():
    mark("argv", sys.argv[0])
    if os.environ.get("QUICK_EXIT_THREAD"):
        threading.Thread(target=late).start()  # not a daemon: an exit waits for it


def test_fails():
    assert False
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "project"
    root.mkdir()
    (root / "test_exit.py").write_text(textwrap.dedent(TESTS), encoding="utf-8")
    monkeypatch.setenv("QUICK_EXIT_OUT", str(tmp_path))
    return root


def marks(folder):
    return sorted(p.name for p in folder.iterdir() if p.is_file())


async def test_a_run_ends_without_tearing_the_modules_down(project, tmp_path):
    plain = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=project,
        capture_output=True,
        text=True,
    )
    assert plain.returncode == 1, plain.stdout
    assert marks(tmp_path) == ["argv", "atexit", "teardown"]  # what a normal exit does
    argv = (tmp_path / "argv").read_text()
    for name in marks(tmp_path):
        (tmp_path / name).unlink()

    run = await run_pytest(project, RunOptions(trace=False))
    assert (run.passed, run.failed) == (1, 1)
    assert marks(tmp_path) == ["argv", "atexit"]  # the atexit handlers ran; no teardown
    assert (tmp_path / "argv").read_text() == argv  # as `python -m pytest` sets it


async def test_a_thread_left_running_is_waited_for(project, tmp_path, monkeypatch):
    monkeypatch.setenv("QUICK_EXIT_THREAD", "1")
    run = await run_pytest(project, RunOptions(trace=False))
    assert (run.passed, run.failed) == (1, 1)
    assert "thread" in marks(tmp_path)  # the normal exit waited for it, as plain pytest does
