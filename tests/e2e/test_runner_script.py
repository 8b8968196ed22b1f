"""run_script end to end: real `python FILE` runs through the overlay boot."""

import time
from pathlib import Path

import pytest
from heal_ls.testing.options import RunOptions
from heal_ls.testing.script import run_script

pytestmark = pytest.mark.e2e

TOOL = """import sys
from lib import parse


def main(argv):
    return parse(argv[1])


if __name__ == "__main__":
    print("result", main(sys.argv))
"""
LIB = "def parse(text):\n    return int(text) * 2\n"


def project(tmp_path: Path) -> Path:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "run.py").write_text(TOOL, encoding="utf-8")
    (tmp_path / "tools" / "lib.py").write_text(LIB, encoding="utf-8")
    return tmp_path


async def test_success_passes_args_and_counts_as_passed(tmp_path):
    root = project(tmp_path)
    result = await run_script(root, "tools/run.py", args=["21"])
    assert (result.passed, result.failed, result.failures) == (1, 0, [])


async def test_crash_is_one_failure_with_frames(tmp_path):
    root = project(tmp_path)
    result = await run_script(root, "tools/run.py", args=["pear"])
    [failure] = result.failures
    assert failure.id == "script:tools/run.py"
    assert failure.script == str(root / "tools" / "run.py")
    assert failure.exc_type == "ValueError" and "pear" in failure.message
    assert [(Path(f.path).name, f.function) for f in failure.frames] == [
        ("run.py", "<module>"),
        ("run.py", "main"),
        ("lib.py", "parse"),
    ]
    assert all("heal_overlay" not in f.path for f in failure.frames)


async def test_overlay_can_replace_the_script_and_its_imports(tmp_path):
    root = project(tmp_path)
    lib = str(root / "tools" / "lib.py")
    fixed = "def parse(text):\n    return len(text)\n"
    result = await run_script(root, "tools/run.py", RunOptions(overlay={lib: fixed}), args=["pear"])
    assert result.failed == 0
    script = str(root / "tools" / "run.py")
    broken = TOOL.replace("return parse(argv[1])", "return 1 / 0")
    result = await run_script(
        root, "tools/run.py", RunOptions(overlay={script: broken}), args=["1"]
    )
    [failure] = result.failures
    assert failure.exc_type == "ZeroDivisionError"
    assert (failure.frames[-1].path, failure.frames[-1].line) == (script, 6)
    assert (root / "tools" / "run.py").read_text() == TOOL


async def test_syntax_error_in_script(tmp_path):
    (tmp_path / "bad.py").write_text("x = (\n", encoding="utf-8")
    result = await run_script(tmp_path, "bad.py")
    [failure] = result.failures
    assert failure.exc_type == "SyntaxError"
    assert failure.frames[-1].path == str(tmp_path / "bad.py")


async def test_hanging_script_is_localised(tmp_path):
    code = "import time\n\ndef wait():\n    time.sleep(60)\n\nwait()\n"
    (tmp_path / "hang.py").write_text(code, encoding="utf-8")
    started = time.monotonic()
    result = await run_script(tmp_path, "hang.py", RunOptions(run_timeout=1.0))
    assert time.monotonic() - started < 15
    [failure] = result.failures
    assert failure.exc_type == "Timeout" and failure.timed_out and result.timed_out
    assert (failure.frames[-1].function, failure.frames[-1].line) == ("wait", 4)


async def test_nonzero_exit_without_traceback(tmp_path):
    (tmp_path / "quit.py").write_text("import sys\nsys.exit('bad config')\n", encoding="utf-8")
    result = await run_script(tmp_path, "quit.py")
    [failure] = result.failures
    assert (failure.exc_type, failure.message) == ("ExitCode", "bad config")


async def test_missing_interpreter_is_a_clear_error(tmp_path):
    project(tmp_path)
    result = await run_script(
        tmp_path, "tools/run.py", RunOptions(python=str(tmp_path / "no-python"))
    )
    assert result.error and "cannot run" in result.error


async def test_sandboxed_script_does_not_see_the_home(tmp_path, monkeypatch, sandbox_level):
    home = tmp_path / "home"
    (home / "secret").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    code = f"import os\nassert not os.path.exists({str(home / 'secret')!r})\n"
    code += "open(os.path.expanduser('~/written'), 'w').close()\n"
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "home.py").write_text(code, encoding="utf-8")
    result = await run_script(tmp_path / "ws", "home.py", RunOptions(sandbox=True))
    assert (result.passed, result.failures) == (1, []), result.failures
    assert sorted(p.name for p in home.iterdir()) == ["secret"]


@pytest.mark.parametrize("sandbox", [False, True], ids=["unisolated", "sandboxed"])
async def test_overlay_serves_the_candidate_to_the_pythons_a_script_starts(tmp_path, sandbox):
    """A script that runs the changed function only in a child Python must run the candidate
    there too: else the verdict judges the file on disk, and a candidate that breaks the child's
    code still "passes"."""
    root = project(tmp_path)
    (root / "tools" / "spawn.py").write_text(
        "import subprocess, sys\n"
        "out = subprocess.run([sys.executable, '-c', 'from lib import parse; print(parse(\"ab\"))'],\n"
        "                     capture_output=True, text=True, cwd=sys.path[0])\n"
        "assert out.stdout.strip() == '2', out.stdout + out.stderr\n",
        encoding="utf-8",
    )
    lib = str(root / "tools" / "lib.py")
    options = RunOptions(overlay={lib: "def parse(text):\n    return len(text)\n"}, sandbox=sandbox)
    result = await run_script(root, "tools/spawn.py", options)
    assert (result.passed, result.failures) == (1, []), [f.message for f in result.failures]
    on_disk = await run_script(root, "tools/spawn.py", RunOptions(sandbox=sandbox))
    assert on_disk.failed == 1  # the file on disk: int("ab") fails in the child
    assert (root / "tools" / "lib.py").read_text() == LIB
