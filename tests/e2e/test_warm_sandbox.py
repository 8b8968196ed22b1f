"""Sandboxed runs on the warm runner: its twin server lives in the sandbox, runs stay limited."""

from __future__ import annotations

import socket
import sys

import pytest
from heal_ls.testing.invocation import SELECT_OVER
from heal_ls.testing.runner import build_pytest_invocation, collect_result
from heal_ls.testing.sandbox_policy import SandboxPolicy
from heal_ls.testing.warm.client import WarmRunner

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("private_learned_lists")]

TESTS = """\
import os, socket, tempfile

def test_home():
    folders = (os.path.expanduser("~"), tempfile.gettempdir())  # fresh for each run
    assert not [f for f in folders if "left-behind" in os.listdir(f)]
    for folder in folders:
        open(os.path.join(folder, "left-behind"), "w").close()
    print("HOME", os.environ["HOME"], "TMP", tempfile.gettempdir())

def test_memory():
    blob = bytearray(3 * 1024**3)
    assert len(blob)

def test_network():
    socket.create_connection(("127.0.0.1", int(os.environ["OPEN_PORT"])), timeout=2).close()
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "test_box.py").write_text(TESTS)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    monkeypatch.setenv("OPEN_PORT", str(listener.getsockname()[1]))
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


async def test_sandboxed_warm_run_is_limited(project, tmp_path, sandbox_level):
    warm = WarmRunner(sys.executable, str(project))
    try:
        free = await run(project, warm, sandbox=False, nodeids=["test_box.py::test_network"])
        policy = SandboxPolicy(test_env=("OPEN_PORT",))
        boxed = await run(project, warm, sandbox=policy)
        again = await run(project, warm, sandbox=policy, nodeids=["test_box.py::test_home"])
    finally:
        warm.close()
    assert warm.cold_runs == 0 and all(twin.cold_runs == 0 for twin in warm.boxed.values())
    assert outcomes(free)["test_network"] == "passed"
    assert outcomes(boxed)["test_memory"] == "failed"
    assert "MemoryError" in {f.exc_type for f in boxed.failures}
    assert outcomes(boxed)["test_home"] == outcomes(again)["test_home"] == "passed"
    assert outcomes(boxed)["test_network"] == "failed"
    assert len(warm.boxed) == 1  # the twin server inside the sandbox served both runs


async def test_what_the_sandboxed_twin_learns_stays_with_it(project, sandbox_level):
    """Modules candidates made the twin import are never preloaded by the unsandboxed server."""
    (project / "test_learn.py").write_text("def test_learn():\n    import wave\n")
    warm = WarmRunner(sys.executable, str(project))
    policy = SandboxPolicy()
    try:
        # the twin says what it learned after a run ends, and the client takes it in at the end
        # of the next run: on a loaded machine that can take more than the three runs it needs
        for _ in range(8):
            result = await run(project, warm, sandbox=policy, nodeids=["test_learn.py"])
            twin = warm.boxed[policy]
            assert outcomes(result) == {"test_learn": "passed"}, result
            if "wave" in twin.learned:
                break
        server = twin.server
        assert "wave" in twin.learned, (
            f"restarts {twin.restarts}, cold runs {twin.cold_runs}, failures {twin.failures}, "
            f"alive {server and server.alive()}, not yet taken in {server and server.learned}"
        )
    finally:
        warm.close()
    plain, boxed = (
        WarmRunner(sys.executable, str(project)),
        WarmRunner(sys.executable, str(project), policy),
    )
    try:
        assert "wave" not in plain.learned and "wave" in boxed.learned
    finally:
        plain.close()
        boxed.close()


async def test_a_sandboxed_warm_run_of_many_ids_keeps_exactly_them(project, sandbox_level):
    """Over SELECT_OVER ids a run takes their files and the plugin keeps the ids from a file
    (agent/heal_select.py): inside the sandbox that file must be there too, or every candidate
    run with that many guards fails its collection (no verification on a big project)."""
    cases = "".join(f"def test_case_{n}():\n    pass\n\n\n" for n in range(SELECT_OVER + 20))
    (project / "test_many.py").write_text(cases + "def test_not_asked():\n    assert False\n")
    asked = [f"test_many.py::test_case_{n}" for n in range(SELECT_OVER + 20)]
    warm = WarmRunner(sys.executable, str(project))
    try:
        result = await run(project, warm, sandbox=SandboxPolicy(), nodeids=asked)
    finally:
        warm.close()
    assert sorted(t.nodeid for t in result.tests) == sorted(asked), result
    assert result.passed == len(asked) and result.failed == 0
