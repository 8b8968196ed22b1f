"""The warm runner against real pytest processes: same results as cold, never stale, robust."""

from __future__ import annotations

import asyncio
import json
import os
import py_compile
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from heal_ls.testing.options import RunOptions
from heal_ls.testing.runner import run_pytest
from heal_ls.testing.warm.client import WarmRunner

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("private_learned_lists")]

CALC = "def add(a, b):\n    return a - b\n"
TESTS = """\
import os, time
from calc import add

def test_add():
    assert add(1, 2) == 3

def test_zero():
    assert add(0, 0) == 0

def test_hang(tmp_path):
    with open(os.environ["HANG_PID_FILE"], "w") as f:
        f.write(str(os.getpid()))
    time.sleep(60)
"""


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "proj"
    (root / "tests").mkdir(parents=True)
    (root / "calc.py").write_text(CALC)
    (root / "tests" / "test_calc.py").write_text(TESTS)
    monkeypatch.setenv("HANG_PID_FILE", str(tmp_path / "hang.pid"))
    # Keep these runs light on a shared machine: no third-party plugins (cold and warm alike).
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    return root


@pytest.fixture
def warm(project):
    runner = WarmRunner(sys.executable, str(project))
    yield runner
    runner.close()


FOCUSED = ["tests/test_calc.py::test_add", "tests/test_calc.py::test_zero"]


def summary(result) -> dict:
    """What must be identical between a warm and a cold run (timings aside)."""
    return {
        "counts": (result.passed, result.failed, result.errors, result.skipped, result.error),
        "tests": sorted((t.nodeid, t.outcome, t.covered == []) for t in result.tests),
        "failures": [
            (
                f.id,
                f.exc_type,
                f.message,
                f.test_line,
                [(x.path, x.line, x.function) for x in f.frames],
            )
            for f in result.failures
        ],
    }


async def test_warm_run_matches_cold_run(project, warm):
    cold = await run_pytest(project, nodeids=FOCUSED)
    first = await run_pytest(project, RunOptions(warm=warm), nodeids=FOCUSED)
    second = await run_pytest(
        project, RunOptions(warm=warm), nodeids=FOCUSED
    )  # after learning preloads
    assert cold.failed == 1 and cold.passed == 1
    assert summary(first) == summary(cold)
    assert summary(second) == summary(cold)
    assert warm.cold_runs == 0 and warm.restarts == 0


async def test_edit_with_same_mtime_and_size_is_seen(project, warm):
    calc = project / "calc.py"
    assert (await run_pytest(project, RunOptions(warm=warm), nodeids=FOCUSED)).failed == 1
    py_compile.compile(str(calc))  # a .pyc whose (mtime, size) stamp will match the edited file
    stamp = calc.stat()
    calc.write_text(CALC.replace("a - b", "a + b"))  # same size
    os.utime(calc, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # same mtime, as within one second
    result = await run_pytest(project, RunOptions(warm=warm), nodeids=FOCUSED)
    assert (result.passed, result.failed) == (2, 0)
    assert warm.cold_runs == 0


async def test_conftest_change_restarts_the_server(project, warm):
    await run_pytest(project, RunOptions(warm=warm), nodeids=FOCUSED)
    first_pid = warm.server.proc.pid
    (project / "tests" / "conftest.py").write_text(
        "import pytest\n\n@pytest.fixture(autouse=True)\ndef fail_everything():\n"
        "    raise RuntimeError('from conftest')\n"
    )
    result = await run_pytest(project, RunOptions(warm=warm), nodeids=FOCUSED)
    assert warm.restarts == 1 and warm.server.proc.pid != first_pid
    assert result.errors == 2 and {f.exc_type for f in result.failures} == {"RuntimeError"}


async def test_killed_server_is_replaced_between_runs(project, warm):
    await run_pytest(project, RunOptions(warm=warm), nodeids=FOCUSED)
    os.kill(warm.server.proc.pid, signal.SIGKILL)
    warm.server.proc.wait(timeout=10)
    result = await run_pytest(project, RunOptions(warm=warm), nodeids=FOCUSED)
    assert (result.passed, result.failed) == (1, 1)
    assert warm.restarts == 1 and warm.cold_runs == 0


async def test_server_dying_mid_run_falls_back_to_cold(project, warm, tmp_path):
    await run_pytest(project, RunOptions(warm=warm), nodeids=FOCUSED)  # server up
    (project / "calc.py").write_text(CALC + "import time\ntime.sleep(1.5)\n")  # a slow import
    task = asyncio.create_task(run_pytest(project, RunOptions(warm=warm), nodeids=FOCUSED))
    await _until(lambda: any(p.pid for p in warm.server.pending.values()))
    os.kill(warm.server.proc.pid, signal.SIGKILL)
    result = await task
    assert (result.passed, result.failed) == (1, 1)
    assert warm.cold_runs == 1


async def test_overlay_is_served_and_does_not_leak(project, warm):
    fixed = CALC.replace("a - b", "a + b")
    healed = await run_pytest(
        project, RunOptions(warm=warm, overlay={str(project / "calc.py"): fixed}), nodeids=FOCUSED
    )
    again = await run_pytest(project, RunOptions(warm=warm), nodeids=FOCUSED)
    assert (healed.passed, healed.failed) == (2, 0)
    assert (again.passed, again.failed) == (1, 1)
    assert (project / "calc.py").read_text() == CALC


async def test_concurrent_runs_with_different_overlays(project, warm):
    path = str(project / "calc.py")
    variants = ["a + b", "a * b", "b - a"]
    results = await asyncio.gather(
        *(
            run_pytest(
                project,
                RunOptions(warm=warm, overlay={path: CALC.replace("a - b", v)}),
                nodeids=FOCUSED,
            )
            for v in variants
        )
    )
    assert [(r.passed, r.failed) for r in results] == [(2, 0), (1, 1), (1, 1)]
    assert warm.cold_runs == 0 and warm.restarts == 0  # the first runs shared one start-up


async def test_hanging_test_times_out_and_is_killed(project, warm, tmp_path):
    started = time.monotonic()
    result = await run_pytest(
        project,
        RunOptions(warm=warm, test_timeout=0, run_timeout=2),
        nodeids=["tests/test_calc.py::test_hang"],
    )
    assert result.timed_out
    assert time.monotonic() - started < 30
    await _until(lambda: not _alive(int((tmp_path / "hang.pid").read_text())))


async def test_cancelling_a_run_kills_its_process(project, warm, tmp_path):
    pid_file = tmp_path / "hang.pid"
    task = asyncio.create_task(
        run_pytest(
            project,
            RunOptions(warm=warm, test_timeout=0),
            nodeids=["tests/test_calc.py::test_hang"],
        )
    )
    await _until(pid_file.exists)
    await _until(lambda: pid_file.read_text().strip() != "")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await _until(lambda: not _alive(int(pid_file.read_text())))
    result = await run_pytest(project, RunOptions(warm=warm), nodeids=FOCUSED)  # still serving
    assert (result.passed, result.failed) == (1, 1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def _until(condition, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


async def test_run_whose_config_does_not_fit_the_preloads_goes_cold(project, warm):
    for _ in range(2):  # the second run starts with pytest plugins preloaded (rewritten)
        await run_pytest(project, RunOptions(warm=warm), nodeids=FOCUSED)
    plain_cold = await run_pytest(
        project, RunOptions(pytest_args=["--assert=plain"]), nodeids=FOCUSED
    )
    plain_warm = await run_pytest(
        project, RunOptions(pytest_args=["--assert=plain"], warm=warm), nodeids=FOCUSED
    )
    assert summary(plain_warm) == summary(plain_cold)
    assert warm.cold_runs == 1 and not warm.rewritten_ok
    again = await run_pytest(
        project, RunOptions(pytest_args=["--assert=plain"], warm=warm), nodeids=FOCUSED
    )
    assert summary(again) == summary(plain_cold) and warm.cold_runs == 1


async def test_idle_server_exits_and_is_restarted(project, warm, monkeypatch):
    monkeypatch.setenv("HEAL_LS_WARM_IDLE", "0.5")
    await run_pytest(project, RunOptions(warm=warm), nodeids=FOCUSED)
    await asyncio.to_thread(warm.server.proc.wait, 30)  # it leaves on its own
    result = await run_pytest(project, RunOptions(warm=warm), nodeids=FOCUSED)
    assert (result.passed, result.failed) == (1, 1)
    assert warm.restarts == 1 and warm.cold_runs == 0


ORPHAN_SCRIPT = """
import asyncio, os, sys
from heal_ls.testing.runner import RunOptions, run_pytest
from heal_ls.testing.warm.client import WarmRunner

async def main():
    warm = WarmRunner(sys.executable, sys.argv[1])
    await run_pytest(sys.argv[1], RunOptions(warm=warm), nodeids=["tests/test_calc.py::test_add"])
    print(warm.server.proc.pid, flush=True)

asyncio.run(main())
os._exit(0)  # no clean-up at all, as if the editor crashed
"""


def test_server_exits_when_its_parent_dies(project, tmp_path):
    script = tmp_path / "orphan.py"
    script.write_text(ORPHAN_SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script), str(project)], capture_output=True, text=True, timeout=120
    )
    server_pid = int(done.stdout.split()[-1])
    deadline = time.monotonic() + 30
    while _alive(server_pid) and not _zombie(server_pid):
        assert time.monotonic() < deadline, "warm server outlived its parent"
        time.sleep(0.05)


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except OSError:
        return False


async def test_prewarm_with_collect_only_learns_the_imports(project, warm):
    from heal_ls.testing.runner import build_pytest_invocation

    inv = build_pytest_invocation(project, RunOptions(pytest_args=["--collect-only"]))
    try:
        assert await warm.prewarm(inv)
    finally:
        inv.cleanup()
    await asyncio.to_thread(_wait_learned, warm)
    result = await run_pytest(project, RunOptions(warm=warm), nodeids=FOCUSED)
    assert (result.passed, result.failed) == (1, 1) and warm.restarts == 0


def _wait_learned(warm, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not warm.server.learned:
        assert time.monotonic() < deadline, "the server learned nothing from the collection"
        time.sleep(0.05)


SPAWN_TEST = """\
import multiprocessing
from calc import add

def _work(queue):
    queue.put(add(2, 2))

def test_spawned_process_imports_workspace_code():
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_work, args=(queue,))
    proc.start()
    assert queue.get(timeout=60) == 0
    proc.join(60)
"""


async def test_multiprocessing_spawn_works_as_in_a_cold_run(project, warm):
    (project / "tests" / "test_spawn.py").write_text(SPAWN_TEST)
    nodeids = ["tests/test_spawn.py"]
    cold = await run_pytest(project, nodeids=nodeids)
    hot = await run_pytest(project, RunOptions(warm=warm), nodeids=nodeids)
    assert cold.passed == 1 and summary(hot) == summary(cold)


async def test_shutdown_all_stops_pooled_servers(project):
    from heal_ls.testing.warm.client import get_warm_runner, shutdown_all

    runner = get_warm_runner(sys.executable, str(project))
    assert get_warm_runner(sys.executable, str(project)) is runner
    await run_pytest(project, RunOptions(warm=runner), nodeids=FOCUSED)
    proc = runner.server.proc
    await shutdown_all()
    assert proc.poll() is not None
    assert get_warm_runner(sys.executable, str(project)) is not runner
    await shutdown_all()


async def test_interpreter_without_pytest_keeps_working_cold(project, tmp_path):
    """A server that cannot start (no pytest) costs a few tries, then runs go cold directly."""
    fake = tmp_path / "python"
    fake.write_text(f"#!/bin/sh\nexec {sys.executable} -c 'import sys; sys.exit(1)' \"$@\"\n")
    fake.chmod(0o755)
    runner = WarmRunner(str(fake), str(project))
    inv_python = str(fake)
    for _ in range(4):
        result = await run_pytest(
            project, RunOptions(python=inv_python, warm=runner), nodeids=FOCUSED
        )
        assert result.passed + result.failed == 0 and result.error  # cold: no pytest there either
    assert runner.cold_runs == 4 and runner.failures == 3


async def test_plain_preload_that_pytest_later_wants_to_rewrite_goes_cold(
    project, warm, tmp_path, monkeypatch
):
    from heal_ls.testing.runner import build_pytest_invocation

    lib = tmp_path / "extsite"
    lib.mkdir()
    (lib / "extlib.py").write_text("VALUE = 1\n")
    monkeypatch.setenv("PYTHONPATH", str(lib))
    (project / "tests" / "test_lib.py").write_text("import extlib\n\ndef test_lib():\n    pass\n")
    for _ in range(2):  # the second run starts with extlib preloaded plainly
        await run_pytest(project, RunOptions(warm=warm), nodeids=["tests/test_lib.py"])
    (project / "tests" / "conftest.py").write_text('pytest_plugins = ["extlib"]\n')
    cold = await run_pytest(project, nodeids=FOCUSED)
    hot = await run_pytest(project, RunOptions(warm=warm), nodeids=FOCUSED)
    assert summary(hot) == summary(cold)
    assert warm.cold_runs == 1 and "extlib" in warm.excluded
    inv = build_pytest_invocation(project, nodeids=FOCUSED)
    try:
        code, output = await warm.run(inv, 60)
    finally:
        inv.cleanup()
    assert code == 1 and "cannot be rewritten" not in output and warm.cold_runs == 1


async def test_a_new_session_starts_with_what_the_last_one_learned(project, warm):
    for _ in range(2):
        await run_pytest(project, RunOptions(warm=warm), nodeids=FOCUSED)
    assert warm.learned or warm.rewritten.names
    fresh = WarmRunner(sys.executable, str(project))  # as if the editor restarted
    try:
        assert list(fresh.learned) == list(warm.learned)
        assert list(fresh.rewritten.names) == list(warm.rewritten.names)
        result = await run_pytest(project, RunOptions(warm=fresh), nodeids=FOCUSED)
        assert (result.passed, result.failed) == (1, 1) and fresh.cold_runs == 0
    finally:
        fresh.close()


async def learn_from_runs(project, warm, nodeids, runs: int = 3) -> None:
    """Run `nodeids` (one more pass than fail) a few times, letting the server learn between."""
    for _ in range(runs):
        result = await run_pytest(project, RunOptions(warm=warm), nodeids=nodeids)
        assert (result.passed, result.failed) == (2, 1)
        await asyncio.sleep(0.5)  # let the server learn (and refuse) between runs


async def test_module_starting_a_thread_is_never_preloaded(project, warm, tmp_path, monkeypatch):
    """Forking a process with extra threads is unsafe: such a module gets excluded."""
    lib = tmp_path / "extsite"
    lib.mkdir()
    (lib / "threadlib.py").write_text(
        "import threading, time\n"
        "threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(lib))
    (project / "tests" / "test_lib.py").write_text(
        "import threadlib\n\ndef test_lib():\n    pass\n"
    )
    nodeids = ["tests/test_lib.py", *FOCUSED]
    await learn_from_runs(project, warm, nodeids)
    assert "threadlib" in warm.excluded
    cold_before = warm.cold_runs
    result = await run_pytest(project, RunOptions(warm=warm), nodeids=nodeids)
    assert (result.passed, result.failed) == (2, 1) and warm.cold_runs == cold_before


@pytest.mark.parametrize("name", ["inventory", "hang"])
async def test_examples_give_the_same_result_warm_and_cold(example_copy, name):
    root = example_copy(name)
    runner = WarmRunner(sys.executable, str(root))
    try:
        cold = await run_pytest(root, RunOptions(test_timeout=2))
        hot = await run_pytest(root, RunOptions(test_timeout=2, warm=runner))
    finally:
        runner.close()
    assert cold.failed == 1 and summary(hot) == summary(cold) and runner.cold_runs == 0


async def test_a_program_entry_module_is_never_preloaded(project, warm, tmp_path, monkeypatch):
    """Importing `<pkg>.__main__` runs a program (venv's makes a virtualenv): a run may import
    one, the server must never import it again on its own."""
    lib = tmp_path / "extsite"
    (lib / "planted").mkdir(parents=True)
    (lib / "planted" / "__init__.py").write_text("")
    marks = tmp_path / "marks"
    (lib / "planted" / "__main__.py").write_text(
        f"import os\nopen({str(marks)!r}, 'a').write(str(os.getpid()) + '\\n')\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(lib))
    (project / "tests" / "test_entry.py").write_text(
        "def test_entry():\n    import planted.__main__\n"
    )
    await learn_from_runs(project, warm, ["tests/test_entry.py", *FOCUSED])
    fresh = WarmRunner(sys.executable, str(project))
    try:
        await run_pytest(project, RunOptions(warm=fresh), nodeids=FOCUSED)
    finally:
        fresh.close()
    assert "planted" in warm.learned  # the package itself is fine to preload
    assert not any("__main__" in name for name in [*warm.learned, *fresh.learned])
    assert len(marks.read_text().split()) == 3  # once per run that imported it, never more


@pytest.mark.parametrize("kind", ["cold", "warm"])
async def test_the_users_lastfailed_is_theirs(project, warm, kind):
    """heal-ls's runs (the editor's prewarm collection, its re-runs) keep a pytest cache of their
    own: pytest rewrites lastfailed at the end of any session whose view differs from the file, so
    a prewarm started before the user's terminal run and ended after it erased that run's record
    (the server then saw an empty lastfailed and showed nothing). Only `heal-ls check`, standing
    in for pytest, writes the user's cache."""
    runner = warm if kind == "warm" else None
    lastfailed = project / ".pytest_cache" / "v" / "cache" / "lastfailed"
    lastfailed.parent.mkdir(parents=True)
    # the record of a run that met a collection error there: any collection of it now differs
    record = '{\n  "tests/test_calc.py": true\n}'
    lastfailed.write_text(record)
    collect = RunOptions(pytest_args=("--collect-only",), trace=False, warm=runner)
    assert (await run_pytest(project, collect)).error is None
    assert (await run_pytest(project, RunOptions(warm=runner), nodeids=FOCUSED)).failed == 1
    assert lastfailed.read_text() == record

    users = RunOptions(user_cache=True, warm=runner)
    assert (await run_pytest(project, users, nodeids=FOCUSED)).failed == 1
    written = json.loads(lastfailed.read_text())
    assert written["tests/test_calc.py::test_add"] is True  # the user's run is recorded


@pytest.mark.parametrize("kind", ["cold", "warm"])
async def test_the_users_coverage_data_is_theirs(project, warm, kind):
    """pytest-cov ends a session by combining every `.coverage.*` file beside its data file and
    deleting them: a heal-ls run (the prewarm, a re-run on save) beside the user's own
    `pytest --cov` took that run's data away mid-run (SQLITE_CANTOPEN in a clean-clone CI run
    of the xdist + cov setup). heal-ls's runs keep their coverage data in their own folder; only
    `heal-ls check`, standing in for pytest, writes the user's."""
    import coverage

    runner = warm if kind == "warm" else None
    in_flight = coverage.CoverageData(basename=str(project / ".coverage"), suffix="theirs.pid1")
    in_flight.add_lines({str(project / "calc.py"): [1]})
    in_flight.write()
    planted = Path(in_flight.data_filename())
    cov = ("-p", "pytest_cov", "--cov=calc", "--cov-report=")
    assert (
        await run_pytest(project, RunOptions(pytest_args=cov, warm=runner), nodeids=FOCUSED)
    ).failed == 1
    assert planted.is_file() and not (project / ".coverage").exists()

    users = RunOptions(pytest_args=cov, user_cache=True, warm=runner)
    assert (await run_pytest(project, users, nodeids=FOCUSED)).failed == 1
    assert (project / ".coverage").is_file()  # the user's own run writes (and combines) theirs


@pytest.fixture
def src_venv(tmp_path) -> tuple[Path, Path]:
    """(a project whose package lives in src/, a Python whose .pth file puts src/ on sys.path):
    what `pip install -e .` of a src layout leaves (its __editable__ .pth), and nothing else
    makes the package importable (no pythonpath in the config)."""
    import site
    import sysconfig

    root = tmp_path / "srcproj"
    (root / "src" / "calc").mkdir(parents=True)
    (root / "src" / "calc" / "__init__.py").write_text(CALC)
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text("from calc import add\n\n\n" + FOCUS_TESTS)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    ours = [sysconfig.get_paths()["purelib"], *site.getsitepackages()]  # pytest, heal-ls's deps
    links = [str(root / "src"), *dict.fromkeys(ours)]
    (Path(purelib) / "__editable__.calc.pth").write_text("\n".join(links) + "\n")
    return root, python


FOCUS_TESTS = "def test_add():\n    assert add(1, 2) == 3\n"


async def test_a_folder_the_interpreters_pth_adds_is_on_the_warm_runs_path(src_venv, monkeypatch):
    """sortedcontainers (src layout, installed editable): the editor's warm runs could not
    import the package (the server's sys.path without workspace folders became the runs'),
    where `heal-ls check` and pytest could: 'No module named ...' on collection."""
    root, python = src_venv
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    cold = await run_pytest(root, RunOptions(python=str(python)))
    warm = WarmRunner(str(python), str(root))
    try:
        first = await run_pytest(root, RunOptions(python=str(python), warm=warm))
    finally:
        warm.close()
    assert (cold.failed, cold.errors) == (1, 0), cold.failures
    assert summary(first) == summary(cold)
    assert warm.cold_runs == 0
