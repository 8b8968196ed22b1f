"""Nothing a sandboxed run leaves behind is trusted outside the sandbox (issue 23, class 5).

Each attack is a candidate (an overlay, as heal-ls serves a model's answer) run in the real
sandbox at every level this machine has. It swaps the files heal-ls reads after the run for a
symlink to a private file outside the sandbox, or for a FIFO, then ends the way that makes heal-ls
read them. The defence is heal_exchange: no symlink followed, nothing but a plain file read.
"""

from __future__ import annotations

import asyncio
import errno
import os
import sys
import threading

import pytest
from heal_ls.testing.options import RunOptions
from heal_ls.testing.runner import build_pytest_invocation, collect_result, run_pytest
from heal_ls.testing.sandbox_policy import SandboxPolicy
from heal_ls.testing.warm.client import WarmRunner

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("private_learned_lists")]

PRIVATE = "AKIA-private-value-never-quoted-7731"
MODULE = "def answer():\n    return 41\n"
TESTS = "from calc import answer\n\n\ndef test_answer():\n    assert answer() == 42\n"
# The candidate: at import time it points the run's stuck-dump and report files at `target`
# (a host path the sandbox cannot see), then dies mid-test so heal-ls reads both.
SWAP_REPORT_FILES = """\
import os

_report = os.environ.get("HEAL_LS_REPORT", "")
for _path in (_report + ".stuck", _report):
    try:
        os.unlink(_path)
    except OSError:
        pass
    os.symlink({target!r}, _path)


def answer():
    os._exit(3)
"""
FIFO_DUMP = """\
import os

_stuck = os.environ["HEAL_LS_REPORT"] + ".stuck"
os.unlink(_stuck)
os.mkfifo(_stuck)


def answer():
    os._exit(3)
"""
# In the warm sandbox the run's output is a file in the exchange folder: the candidate finds it
# among its open files (pytest's capture holds the original stdout on another descriptor).
SWAP_OUTPUT = """\
import os

for _fd in os.listdir("/proc/self/fd"):
    try:
        _out = os.readlink("/proc/self/fd/" + _fd)
    except OSError:
        continue
    if _out.startswith("/run/heal-ls-io/") and os.path.basename(_out) == "out":
        os.unlink(_out)
        os.symlink({target!r}, _out)


def answer():
    return 42
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "calc.py").write_text(MODULE)
    (root / "test_calc.py").write_text(TESTS)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    return root


def assert_not_trusted(run) -> None:
    """The report is gone (the candidate replaced it): the run proves nothing, and says so."""
    assert not run.complete and run.error and not run.passed
    assert not any(t.outcome == "passed" for t in run.tests)


class FifoWatch:
    """A FIFO outside the sandbox that records whether anyone ever opened it for reading."""

    def __init__(self, path):
        self.path = str(path)
        os.mkfifo(self.path)
        self.opened = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._probe, daemon=True)
        self._thread.start()

    def _probe(self) -> None:
        while not self._stop.wait(0.02):
            try:  # opening a FIFO's write end without blocking works only if a reader waits
                fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as exc:
                if exc.errno == errno.ENXIO:
                    continue
                raise
            self.opened = True
            os.close(fd)  # the reader sees end-of-file and goes on
            return

    def close(self) -> bool:
        self._stop.set()
        self._thread.join()
        return self.opened


async def test_symlinked_dump_to_a_private_fifo_is_never_opened(project, tmp_path, sandbox_level):
    watch = FifoWatch(tmp_path / "private-fifo")
    candidate = SWAP_REPORT_FILES.format(target=watch.path)
    run = await asyncio.wait_for(
        run_pytest(
            project, RunOptions(overlay={str(project / "calc.py"): candidate}, sandbox=True)
        ),
        60,
    )
    assert not watch.close(), "heal-ls followed the candidate's symlink out of the sandbox"
    assert_not_trusted(run)


async def test_symlinked_dump_to_a_private_file_is_not_read(project, tmp_path, sandbox_level):
    private = tmp_path / "credentials"  # shaped like a stack dump, so a read would show
    private.write_text(
        f'Current thread 0x1 (most recent call first):\n  File "{PRIVATE}.py", line 1 in x\n'
    )
    candidate = SWAP_REPORT_FILES.format(target=str(private))
    run = await run_pytest(
        project, RunOptions(overlay={str(project / "calc.py"): candidate}, sandbox=True)
    )
    assert PRIVATE not in repr(run)
    assert_not_trusted(run)


async def test_fifo_in_place_of_the_dump_does_not_hang_heal_ls(project, sandbox_level):
    overlay = {str(project / "calc.py"): FIFO_DUMP}
    run = await asyncio.wait_for(run_pytest(project, RunOptions(overlay=overlay, sandbox=True)), 60)
    assert [f.test for f in run.failures] == ["test_calc.py::test_answer"]


async def test_warm_output_swapped_for_a_symlink_is_not_quoted(project, tmp_path, sandbox_level):
    private = tmp_path / "home-secret.txt"
    private.write_text(f"aws_secret_access_key = {PRIVATE}\n")
    candidate = SWAP_OUTPUT.format(target=str(private))
    warm = WarmRunner(sys.executable, str(project))
    inv = build_pytest_invocation(
        project, RunOptions(overlay={str(project / "calc.py"): candidate})
    )
    try:
        code, output = await asyncio.wait_for(warm.run(inv, 60, sandbox=SandboxPolicy()), 90)
        run = collect_result(inv, code, output, 0.0)
    finally:
        inv.cleanup()
        warm.close()
    assert PRIVATE not in output
    assert PRIVATE not in repr(run)
    assert {t.nodeid: t.outcome for t in run.tests} == {"test_calc.py::test_answer": "passed"}, (
        output,
        run,
    )
