"""Sandboxed runs on the warm runner: temp HOME, memory limit, no network (where the OS allows)."""

from __future__ import annotations

import os
import socket
import sys

import pytest
from heal_ls.testing.runner import build_pytest_invocation, collect_result
from heal_ls.testing.sandbox import unshare_prefix
from heal_ls.testing.warm import WarmRunner

pytestmark = pytest.mark.e2e

TESTS = """\
import os, socket, tempfile

def test_home():
    with open(os.environ["HOME_REPORT"], "w") as f:
        f.write(os.environ["HOME"] + "\\n" + tempfile.gettempdir())

def test_memory():
    blob = bytearray(3 * 1024**3)
    assert len(blob)

def test_network():
    socket.create_connection(("127.0.0.1", int(os.environ["OPEN_PORT"])), timeout=2).close()
"""


@pytest.fixture(autouse=True)
def private_learned_lists(tmp_path, monkeypatch):
    from heal_ls.testing import warm as warm_module

    monkeypatch.setattr(warm_module, "LEARNED_DIR", str(tmp_path / "learned"))


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "test_box.py").write_text(TESTS)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    monkeypatch.setenv("OPEN_PORT", str(listener.getsockname()[1]))
    monkeypatch.setenv("HOME_REPORT", str(tmp_path / "home.txt"))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    yield root
    listener.close()


async def run(root, warm, sandbox, nodeids=None):
    inv = build_pytest_invocation(root, nodeids=nodeids)
    try:
        code, output = await warm.run(inv, 60, sandbox=sandbox)
        return collect_result(inv, code, output, 0.0)
    finally:
        inv.cleanup()


def outcomes(result) -> dict[str, str]:
    return {t.nodeid.split("::")[-1]: t.outcome for t in result.tests}


async def test_sandboxed_warm_run_is_limited(project, tmp_path):
    warm = WarmRunner(sys.executable, str(project))
    try:
        free = await run(project, warm, sandbox=False, nodeids=["test_box.py::test_network"])
        boxed = await run(project, warm, sandbox=True)
    finally:
        warm.close()
    assert warm.cold_runs == 0
    assert outcomes(free)["test_network"] == "passed"
    assert outcomes(boxed)["test_memory"] == "failed"
    assert "MemoryError" in {f.exc_type for f in boxed.failures}
    home, temp = (tmp_path / "home.txt").read_text().splitlines()
    assert home != os.environ.get("HOME") and "heal-ls-home-" in home
    assert temp == home  # TMPDIR follows the sandbox even if the server computed it before
    if unshare_prefix():
        assert outcomes(boxed)["test_network"] == "failed"
