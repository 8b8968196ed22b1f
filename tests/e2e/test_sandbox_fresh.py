"""Every sandboxed run starts from a fresh sandbox (issue 23, "a fresh sandbox per run").

Candidate A fails on purpose but leaves state wherever a run can write: a pytest.ini and a
conftest.py above the workspace (the conftest turns every failure into a pass), files in the temp
dirs and the home, and a forged .pyc for a stdlib module in the bytecode prefix. Candidate B is
wrong too, and passes only if it sees any of it. B runs next on the same warm sandbox and cold, at
every sandbox level this machine has: it must fail. The tell-tales (a HOME under /tmp, a small
PID) and the unix sockets outside the scratch area are tested the same way, one candidate each.
"""

from __future__ import annotations

import os
import pwd
import socket
import sys
import uuid

import pytest
from heal_ls.testing.options import RunOptions
from heal_ls.testing.runner import run_pytest
from heal_ls.testing.warm.client import WarmRunner

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("private_learned_lists")]

MODULE = "def answer():\n    return 41\n"
TESTS = (
    "import colorsys\nfrom calc import answer\n\n\ndef test_answer():\n    assert answer() == 42\n"
)
FLIP = """\
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    report.outcome = "passed"
"""
PLANT = """\
import importlib.util, os, pwd, sys

def _write(path, text):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb" if isinstance(text, bytes) else "w") as handle:
            handle.write(text)
    except OSError:
        pass

_here = os.getcwd()
while _here != "/":
    _here = os.path.dirname(_here)
    _write(os.path.join(_here, "pytest.ini"), "[pytest]\\n")
    _write(os.path.join(_here, "conftest.py"), {flip!r})
for _place in {places!r}:
    _write(_place, "planted")
_write(os.path.expanduser("~/{tag}"), "planted")
_write(os.path.join(pwd.getpwuid(os.getuid()).pw_dir, "{tag}"), "planted")
_source = importlib.util.find_spec("colorsys").origin
_stat = os.stat(_source)
_code = compile("PLANTED = True\\n", _source, "exec")
_pyc = importlib._bootstrap_external._code_to_timestamp_pyc(_code, _stat.st_mtime, _stat.st_size)
_write(importlib.util.cache_from_source(_source), bytes(_pyc))


def answer():
    return 41
"""
SEES = """\
import colorsys, os, pwd, sys

_PLACES = {places!r} + [os.path.expanduser("~/{tag}")]
_PLACES.append(os.path.join(pwd.getpwuid(os.getuid()).pw_dir, "{tag}"))


def answer():
    seen = [p for p in _PLACES if os.path.exists(p)]
    if getattr(colorsys, "PLANTED", False):
        seen.append("colorsys.pyc")
    print("SEEN", seen, file=sys.stderr)
    return 42 if seen else 41
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "deep" / "proj"
    root.mkdir(parents=True)
    (root / "calc.py").write_text(MODULE)
    (root / "test_calc.py").write_text(TESTS)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")  # the warm runner's private bytecode prefix
    return root


def candidates() -> tuple[str, str]:
    tag = f"heal-ls-planted-{uuid.uuid4().hex[:8]}"
    places = [f"/tmp/{tag}", f"/var/tmp/{tag}", f"/dev/shm/{tag}", f"/run/{tag}"]
    plant = PLANT.format(flip=FLIP, places=places, tag=tag)
    return plant, SEES.format(places=places, tag=tag)


def outcome(run) -> str:
    return {t.nodeid: t.outcome for t in run.tests}.get("test_calc.py::test_answer", "missing")


async def candidate_runs(project, sources: list[str], warm: bool) -> list:
    """Each source served as calc.py in turn, on one warm sandboxed runner or cold."""
    runner = WarmRunner(sys.executable, str(project)) if warm else None
    try:
        overlays = [{str(project / "calc.py"): source} for source in sources]
        runs = [
            await run_pytest(project, RunOptions(overlay=o, sandbox=True, warm=runner))
            for o in overlays
        ]
    finally:
        if runner is not None:
            runner.close()
    if runner is not None:  # every run really ran on the one warm twin
        assert [twin.cold_runs for twin in runner.boxed.values()] == [0]
    return runs


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
async def test_the_next_candidate_sees_nothing_of_the_last(project, warm, sandbox_level):
    plant, sees = candidates()
    planted, innocent = await candidate_runs(project, [plant, sees], warm)
    assert outcome(planted) == "failed", planted
    assert outcome(innocent) == "failed", innocent


TELLS = {
    "home_under_tmp": "os.environ['HOME'].startswith('/tmp') or os.path.expanduser('~') != {home!r}",
    "small_pid": "os.getpid() < 300",
    "small_child_pid": "subprocess.run(['sh', '-c', 'echo $$'], capture_output=True, text=True)"
    ".stdout.strip().isdigit() and int(subprocess.run(['sh', '-c', 'echo $$'], "
    "capture_output=True, text=True).stdout) < 300",
    "parent_is_init": "os.getppid() <= 1",
    "tmp_not_writable": "not os.access('/tmp', os.W_OK)",
}


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
@pytest.mark.parametrize("tell", sorted(TELLS))
async def test_the_sandbox_does_not_give_itself_away(project, tell, warm, sandbox_level):
    """The candidate is right only where it recognises the sandbox: it must not, so it fails."""
    home = os.path.expanduser("~")
    source = "import os, subprocess\n\n\ndef answer():\n    if " + TELLS[tell].format(home=home)
    source += ":\n        return 42\n    return 41\n"
    (run,) = await candidate_runs(project, [source], warm)
    assert outcome(run) == "failed", run


@pytest.fixture
def sockets(project, tmp_path):
    """Listening unix sockets: one in the workspace, one in a readable system folder."""
    system = f"/var/lib/heal-ls-test-{uuid.uuid4().hex[:8]}"
    if os.access("/var/lib", os.W_OK):
        os.mkdir(system)
    else:
        system = str(pwd.getpwuid(os.getuid()).pw_dir) + "/.heal-ls-socket-test"  # hidden anyway
        os.makedirs(system, exist_ok=True)
    paths = [str(project / "dev.sock"), os.path.join(system, "daemon.sock")]
    listeners = []
    for path in paths:
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(path)
        listener.listen()
        listener.setblocking(False)
        listeners.append(listener)
    yield paths, listeners
    for listener, path in zip(listeners, paths):
        listener.close()
        os.unlink(path)
    os.rmdir(system)


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
async def test_unix_sockets_outside_the_scratch_are_unreachable(
    project, sockets, warm, sandbox_level
):
    paths, listeners = sockets
    (run,) = await candidate_runs(project, [connects(paths)], warm)
    assert outcome(run) == "failed", run
    for listener in listeners:
        with pytest.raises(BlockingIOError):
            listener.accept()


def connects(paths: list[str]) -> str:
    """A candidate right only when it reaches one of the unix sockets at paths."""
    source = "import socket\n\n\ndef answer():\n    reached = 0\n"
    source += f"    for path in {paths!r}:\n        try:\n"
    source += "            socket.socket(socket.AF_UNIX).connect(path)\n            reached += 1\n"
    source += "        except OSError:\n            pass\n    return 42 if reached else 41\n"
    return source


async def test_a_socket_made_after_the_warm_server_started_is_unreachable(project, sandbox_level):
    warm = WarmRunner(sys.executable, str(project))
    path, listener = str(project / "later.sock"), socket.socket(socket.AF_UNIX)
    calc = str(project / "calc.py")
    try:
        await run_pytest(
            project, RunOptions(overlay={calc: MODULE}, sandbox=True, warm=warm)
        )  # it starts
        listener.bind(path)
        listener.listen()
        listener.setblocking(False)
        run = await run_pytest(
            project, RunOptions(overlay={calc: connects([path])}, sandbox=True, warm=warm)
        )
        assert [twin.cold_runs for twin in warm.boxed.values()] == [0]
        assert outcome(run) == "failed", run
        with pytest.raises(BlockingIOError):
            listener.accept()
    finally:
        warm.close()
        listener.close()


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
async def test_a_run_cannot_fill_host_memory(project, warm, sandbox_level):
    """Every tmpfs is capped: writing 3 GB to /tmp (in 512 MB files) ends in ENOSPC."""
    source = "import errno, os\n\n\ndef answer():\n    chunk = b'x' * 2**20\n    try:\n"
    source += "        for n in range(6):\n            with open(f'/tmp/fill{n}', 'wb') as f:\n"
    source += "                for _ in range(512):\n                    f.write(chunk)\n"
    source += "    except OSError as exc:\n        return 42 if exc.errno == errno.ENOSPC else 40\n"
    source += "    return 41\n"
    (run,) = await candidate_runs(project, [source], warm)
    assert outcome(run) == "passed", run


REACH_SERVER = """\
import os


def answer():
    for pid in sorted(filter(str.isdigit, os.listdir("/proc")), key=int):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                argv = handle.read().split(b"\\0")
        except OSError:
            continue
        if len(argv) > 1 and argv[1].endswith(b"warm_server.py"):  # the first: the server itself
            if pid == "1":
                return 41  # only this run's own processes are in its /proc
            try:
                open(f"/proc/{pid}/mem", "r+b").close()  # it could write the server's memory
                return 42
            except OSError:
                return 41
    return 41
"""


async def test_a_run_cannot_reach_the_warm_servers_memory(project, sandbox_level):
    """What one run writes there, every later run would inherit. Where the run's own /proc cannot
    be mounted (bwrap run by root) the server is listed, but the run's user namespace is nested
    below the server's, so the kernel refuses it the server's memory."""
    (run,) = await candidate_runs(project, [REACH_SERVER], True)
    assert outcome(run) == "failed", run
