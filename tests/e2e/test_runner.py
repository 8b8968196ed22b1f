"""run_pytest end to end: real pytest subprocesses on tiny projects built in tmp_path."""

import asyncio
import importlib.util
import os
import py_compile
import socket
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest
from heal_ls.testing.agent import heal_env
from heal_ls.testing.head_start import HeadStart
from heal_ls.testing.options import RunOptions
from heal_ls.testing.runner import run_pytest
from heal_ls.testing.sandbox import MEMORY_LIMIT

pytestmark = pytest.mark.e2e


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


CALC = """
    def mean(values):
        return sum(values) / (len(values) + 1)
"""
CALC_FIXED = """
    def mean(values):
        total = sum(values)
        return total / len(values)
"""
CALC_TEST = """
    from calc import mean

    def test_mean():
        assert mean([2, 4]) == 3
"""


async def test_nodeid_selection_runs_only_that_test(tmp_path):
    tests = textwrap.dedent(CALC_TEST) + "\ndef test_other():\n    pass\n"
    root = write(tmp_path, {"calc.py": CALC, "test_calc.py": tests})
    result = await run_pytest(root, nodeids=["test_calc.py::test_other"])
    assert [t.nodeid for t in result.tests] == ["test_calc.py::test_other"]
    assert (result.passed, result.failed) == (1, 0)


async def test_overlay_serves_candidate_without_touching_the_file(tmp_path):
    root = write(tmp_path, {"calc.py": CALC, "test_calc.py": CALC_TEST})
    pyc = importlib.util.cache_from_source(str(root / "calc.py"))
    py_compile.compile(str(root / "calc.py"), cfile=pyc)  # bytecode of the buggy version
    stale = Path(pyc).read_bytes()
    fixed = textwrap.dedent(CALC_FIXED).lstrip("\n")
    result = await run_pytest(root, RunOptions(overlay={str(root / "calc.py"): fixed}))
    assert (result.passed, result.failed) == (1, 0)  # the candidate ran, not the .pyc
    assert (root / "calc.py").read_text() == textwrap.dedent(CALC).lstrip("\n")
    assert Path(pyc).read_bytes() == stale  # and nothing was written for the overlaid module


@pytest.mark.parametrize("sandbox", [False, True], ids=["unisolated", "sandboxed"])
async def test_overlay_serves_the_candidate_to_the_pythons_a_test_starts(tmp_path, sandbox):
    """A guard that runs the changed function only in a child Python (a CLI run through
    subprocess) must test the candidate, not the file on disk: else it passes whatever the
    candidate does, and a verdict counts it as a guard that held."""
    tests = """
        import subprocess, sys

        def test_mean_in_a_child():
            code = "from calc import mean; print(mean([2, 4]))"
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            assert out.stdout.strip() == "3.0", out.stdout + out.stderr
    """
    root = write(tmp_path, {"calc.py": CALC, "test_calc.py": tests})
    overlay = {str(root / "calc.py"): textwrap.dedent(CALC_FIXED).lstrip("\n")}
    for trace in (False, True):  # a verification's run, and the editor's unsaved buffers
        options = RunOptions(overlay=overlay, trace=trace, sandbox=sandbox, run_timeout=60)
        result = await run_pytest(root, options)
        assert (result.passed, result.failed) == (1, 0), [f.message for f in result.failures]
    result = await run_pytest(root, RunOptions(trace=False, sandbox=sandbox, run_timeout=60))
    assert (result.passed, result.failed) == (0, 1)  # the file on disk: the bug


async def test_overlay_tracebacks_show_real_path_and_overlay_lines(tmp_path):
    root = write(tmp_path, {"calc.py": CALC, "test_calc.py": CALC_TEST})
    candidate = "def mean(values):\n    x = 1\n    raise ValueError('from overlay')\n"
    result = await run_pytest(root, RunOptions(overlay={str(root / "calc.py"): candidate}))
    [failure] = result.failures
    assert (failure.exc_type, failure.message) == ("ValueError", "from overlay")
    assert failure.frames[-1].path == str(root / "calc.py")
    assert failure.frames[-1].line == 3
    assert failure.covered == [f"{root / 'calc.py'}:1"]


async def test_overlay_applies_to_modules_imported_by_conftest(tmp_path):
    files = {"calc.py": CALC, "conftest.py": "import calc\n", "test_calc.py": CALC_TEST}
    root = write(tmp_path, files)
    fixed = textwrap.dedent(CALC_FIXED).lstrip("\n")
    result = await run_pytest(root, RunOptions(overlay={str(root / "calc.py"): fixed}))
    assert (result.passed, result.failed) == (1, 0)


HANGS = """
    import time

    def wait_forever():
        time.sleep(60)

    def stubborn():
        while True:
            try:
                time.sleep(60)
            except BaseException:
                pass
"""


@pytest.mark.parametrize("sandbox", [False, True], ids=["unisolated", "sandboxed"])
async def test_a_run_never_inherits_another_recordings_child_folder(tmp_path, monkeypatch, sandbox):
    """The attack: heal-ls itself started inside a recorded test (CHILD_HITS in its environment)
    verifies a candidate whose test starts a Python child. Neither the untraced run nor its
    child may record into that folder: the recording that owns it would take the candidate's
    hits as its own test's evidence."""
    outer = tmp_path / "outer-recording"
    outer.mkdir()
    monkeypatch.setenv(heal_env.CHILD_HITS, str(outer))
    monkeypatch.setenv(heal_env.HITS_CACHE, str(tmp_path / "outer-cache"))
    tests = """
        import subprocess, sys
        from calc import mean

        def test_mean_in_a_child():
            code = "from calc import mean; print(mean([2, 4]))"
            assert subprocess.run([sys.executable, "-c", code], check=True).returncode == 0
    """
    root = write(tmp_path / "ws", {"calc.py": CALC, "test_calc.py": tests})
    overlay = {str(root / "calc.py"): textwrap.dedent(CALC_FIXED).lstrip("\n")}
    options = RunOptions(overlay=overlay, trace=False, sandbox=sandbox, run_timeout=60)
    result = await run_pytest(root, options)
    assert (result.passed, result.failed) == (1, 0), [f.message for f in result.failures]
    assert list(outer.iterdir()) == []
    assert not (tmp_path / "outer-cache").exists()


async def test_hanging_test_is_localised_and_the_run_goes_on(tmp_path):
    tests = "from hangs import wait_forever\n\ndef test_hang():\n    wait_forever()\n\ndef test_next():\n    pass\n"
    root = write(tmp_path, {"hangs.py": HANGS, "test_hang.py": tests})
    started = time.monotonic()
    result = await run_pytest(root, RunOptions(test_timeout=1.0, run_timeout=60))
    assert time.monotonic() - started < 30
    [failure] = result.failures
    assert failure.exc_type == "Timeout" and failure.timed_out
    assert (Path(failure.frames[-1].path).name, failure.frames[-1].line) == ("hangs.py", 4)
    assert failure.test_line == 4
    assert (result.passed, result.failed) == (1, 1)


async def test_a_test_that_fakes_the_clock_neither_times_out_nor_stops_the_run(tmp_path):
    # freezegun-6cba8b6f (round 7): a failing test left time frozen far from the real clock, and
    # the per-test watchdog, reading time.monotonic, ended the run with an internal error
    tests = """
        import sys, time

        REAL = time.monotonic


        def frozen():
            return 1e12


        def test_freezes_time_and_fails_frozen():
            for module in list(sys.modules.values()):  # as freezegun rebinds the real clock
                for name, value in list(getattr(module, "__dict__", {}).items()):
                    if value is REAL:
                        setattr(module, name, frozen)
            time.monotonic = frozen
            assert False, "time left frozen"


        def test_after():
            pass
    """
    root = write(tmp_path, {"test_clock.py": tests})
    result = await run_pytest(root, RunOptions(test_timeout=2, run_timeout=60))
    assert result.error is None, result.error
    assert (result.passed, result.failed) == (1, 1)
    assert "time left frozen" in result.failures[0].message


async def test_test_that_swallows_the_interrupt_ends_the_run_cleanly(tmp_path):
    tests = "from hangs import stubborn\n\ndef test_stubborn():\n    stubborn()\n"
    root = write(tmp_path, {"hangs.py": HANGS, "test_stubborn.py": tests})
    result = await run_pytest(root, RunOptions(test_timeout=1.0, run_timeout=60))
    [failure] = result.failures
    assert failure.exc_type == "Timeout" and failure.timed_out
    assert failure.frames[-1].function == "stubborn"


async def test_hang_in_c_code_holding_the_gil_is_caught_by_faulthandler(tmp_path):
    tests = "def test_busy():\n    sum(range(10**12))\n"
    root = write(tmp_path, {"test_busy.py": tests})
    result = await run_pytest(root, RunOptions(test_timeout=1.0, run_timeout=60))
    [failure] = result.failures
    assert failure.exc_type == "Timeout" and failure.timed_out
    assert (failure.frames[-1].function, failure.frames[-1].line) == ("test_busy", 2)


@pytest.mark.parametrize("ahead", [False, True], ids=["spawned", "head-start"])
async def test_run_timeout_kills_the_run_and_keeps_finished_tests(tmp_path, ahead):
    """Also when the run was spawned ahead (heal-ls check's head start) and taken over: its
    stacks are asked for and it is killed the same way."""
    tests = "import time\n\ndef test_fast():\n    pass\n\ndef test_slow():\n    time.sleep(60)\n"
    root = write(tmp_path, {"test_slow.py": tests})
    started = time.monotonic()
    options = RunOptions(test_timeout=0, run_timeout=6)
    head = HeadStart.spawn(str(root), options, []) if ahead else None
    result = await run_pytest(root, options, started=head)
    assert head is None or head.started is None  # taken over, not spawned again
    assert time.monotonic() - started < 20
    assert result.timed_out
    assert result.passed == 1
    [failure] = result.failures
    assert failure.id == "test_slow.py::test_slow" and failure.timed_out
    assert (failure.frames[-1].function, failure.frames[-1].line) == ("test_slow", 7)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as handle:  # a zombie is dead for our purposes
        return handle.read().split()[2] != "Z"


def _spawning_test(tmp_path: Path) -> Path:
    tests = f"""
        import subprocess, time
        def test_spawns():
            child = subprocess.Popen(["sleep", "60"])
            open({str(tmp_path / "pid")!r}, "w").write(str(child.pid))
            time.sleep(60)
    """
    return write(tmp_path, {"test_spawn.py": tests})


async def _grandchild(tmp_path: Path) -> int:
    pid_file = tmp_path / "pid"
    for _ in range(600):
        if pid_file.exists() and pid_file.read_text():
            break
        await asyncio.sleep(0.05)
    return int(pid_file.read_text())


@pytest.mark.parametrize("ahead", [False, True], ids=["spawned", "head-start"])
async def test_cancelling_the_task_kills_the_process_group(tmp_path, ahead):
    root = _spawning_test(tmp_path)
    options = RunOptions(test_timeout=0, run_timeout=120)
    head = HeadStart.spawn(str(root), options, []) if ahead else None
    task = asyncio.create_task(run_pytest(root, options, started=head))
    grandchild = await _grandchild(tmp_path)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.2)
    assert not _alive(grandchild)


async def test_a_head_start_nobody_takes_is_killed_with_its_group(tmp_path):
    """A run spawned ahead for other ids (or other options) than the run asked for is not
    taken; closing it kills its process group and removes its files."""
    root = _spawning_test(tmp_path)
    options = RunOptions(test_timeout=0, run_timeout=120)
    head = HeadStart.spawn(str(root), options, [])
    assert head is not None and head.started is not None
    assert head.take(root, options, ["test_spawn.py"]) is None
    assert head.take(root, replace(options, trace=False), []) is None
    grandchild = await _grandchild(tmp_path)
    workdir = head.started.inv.workdir
    head.close()
    await asyncio.sleep(0.2)
    assert not _alive(grandchild) and not os.path.exists(workdir)


async def test_conftest_import_error_is_reported(tmp_path):
    files = {
        "conftest.py": "import helper\n",
        "helper.py": "import no_such_module_here\n",
        "test_a.py": "def test_a():\n    pass\n",
    }
    root = write(tmp_path, files)
    result = await run_pytest(root)
    assert result.error is None and result.errors == 1  # a failure, not a usage error
    [failure] = result.failures
    assert failure.id == "collect:conftest.py"
    assert (failure.test_path, failure.test_line) == (str(root / "conftest.py"), 1)
    assert (failure.exc_type, failure.message) == (
        "ModuleNotFoundError",
        "No module named 'no_such_module_here'",
    )
    assert [(f.path, f.line) for f in failure.frames] == [
        (str(root / "conftest.py"), 1),
        (str(root / "helper.py"), 1),
    ]


async def test_bad_interpreter_and_missing_pytest_are_clear_errors(tmp_path):
    root = write(tmp_path, {"test_a.py": "def test_a():\n    pass\n"})
    missing = await run_pytest(root, RunOptions(python=str(tmp_path / "nope" / "python")))
    assert missing.error and "cannot run" in missing.error
    if Path("/usr/bin/python3").exists():
        no_pytest = await run_pytest(root, RunOptions(python="/usr/bin/python3"))
        assert no_pytest.error and "pytest" in no_pytest.error


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="POSIX only")
async def test_sandbox_has_temp_home_rlimits_and_no_network(tmp_path, sandbox_level):
    listener = socket.create_server(("127.0.0.1", 0))  # reachable only from our own netns
    port = listener.getsockname()[1]
    tests = f"""
        import os, resource, socket

        def test_home():  # the user's path, a fresh tmpfs: only what is bound back is there
            assert os.environ["HOME"] == {os.path.expanduser("~")!r}
            assert set(os.listdir(os.environ["HOME"])) <= {{".pyenv", ".local", ".cache"}}

        def test_memory_limit():
            assert resource.getrlimit(resource.RLIMIT_AS)[0] == {MEMORY_LIMIT}

        def test_network():
            sock = socket.socket()
            sock.settimeout(2)
            assert sock.connect_ex(("127.0.0.1", {port})) != 0  # refused: another netns
    """
    root = write(tmp_path, {"test_box.py": tests})
    try:
        result = await run_pytest(root, RunOptions(sandbox=True, run_timeout=60))
    finally:
        listener.close()
    assert result.error is None, result.error
    assert (result.passed, result.failed) == (3, 0), [f.message for f in result.failures]
