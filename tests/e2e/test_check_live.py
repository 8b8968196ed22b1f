"""`heal-ls check` on a terminal: live progress (tests done/total, failures as they happen)
shown before the run ends; plain output when piped. Also --last-failed, --flaky-runs and
several paths."""

import json
import os
import pty
import re
import select
import subprocess
import sys
import time

import pytest
from helpers.cli import NO_TRIAGE, heal_check, write

pytestmark = pytest.mark.e2e

FILES = {
    "pytest.ini": "[pytest]\npythonpath = .\n",
    "calc.py": "def double(x):\n    return x + 2\n",
    "tests/test_a.py": "from calc import double\n\n\ndef test_double():\n    assert double(3) == 6\n",
    "tests/test_b.py": "import time\n\n\ndef test_slow():\n    time.sleep(4)\n",
}


@pytest.fixture
def slow_project(tmp_path):
    write(tmp_path, FILES)
    return tmp_path


def run_in_pty(args, cwd, columns: int = 160) -> list[tuple[float, str, bool]]:
    """Run heal-ls under a pseudo-terminal; (seconds, text, still running) per chunk read."""
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "COLUMNS": str(columns)}
    process = subprocess.Popen(
        [sys.executable, "-m", "heal_ls", *args],
        stdin=follower, stdout=follower, stderr=follower, cwd=cwd, env=env, close_fds=True,
    )  # fmt: skip
    os.close(follower)
    started, chunks = time.monotonic(), []
    while True:
        ready, _, _ = select.select([leader], [], [], 0.1)
        if ready:
            try:
                data = os.read(leader, 4096)
            except OSError:  # the terminal closed: the process is gone
                break
            if not data:
                break
            running = process.poll() is None
            chunks.append((time.monotonic() - started, data.decode(errors="replace"), running))
        elif process.poll() is not None:
            break
    process.wait(timeout=30)
    os.close(leader)
    return chunks


def test_failures_and_counts_show_while_the_run_goes_on(slow_project):
    chunks = run_in_pty(["check", "--short"], slow_project)
    while_running = "".join(text for _, text, running in chunks if running)
    # the fast failure is on screen while the 4 s test still runs, with the count of tests
    assert "FAILED tests/test_a.py::test_double - AssertionError" in while_running
    assert "1/2" in while_running
    everything = "".join(text for _, text, _ in chunks)
    assert "tests/test_a.py::test_double failed: AssertionError" in everything  # the report


def test_the_bar_says_when_a_long_test_will_be_stopped(slow_project):
    chunks = run_in_pty(["check", "tests/test_b.py", "--test-timeout", "20"], slow_project)
    while_running = "".join(text for _, text, running in chunks if running)
    assert "tests/test_b.py::test_slow" in while_running and "stops in 1" in while_running


def drawn_lines(text: str) -> list[str]:
    """What the terminal shows of `text`: escape sequences dropped, one entry per redraw."""
    redraws = re.split(r"\x1b\[2K|[\r\n]", text)  # rich erases the line, then draws it
    plain = (re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", line) for line in redraws)
    return [line for line in plain if line.strip()]


def test_an_80_column_terminal_still_shows_the_step(slow_project):
    """At 80 columns the bar keeps the test in hand on its line (it collapsed to `tests ━ ...`
    with the step cut away), and no line is wider than the terminal (issue 25, item 6)."""
    long_name = "test_a_slow_check_whose_name_alone_is_nearly_as_wide_as_the_terminal"
    write(
        slow_project,
        {"tests/test_c.py": f"import time\n\n\ndef {long_name}():\n    time.sleep(4)\n"},
    )
    chunks = run_in_pty(["check", "tests/test_c.py"], slow_project, columns=80)
    while_running = "".join(text for _, text, running in chunks if running)
    bars = [line for line in drawn_lines(while_running) if "tests/test_c.py::test_a_slow" in line]
    assert bars, drawn_lines(while_running)
    assert all(re.search(r" [01]/1 ", line) for line in bars), bars  # count and step, side by side
    assert max(len(line) for line in bars) <= 80, bars


def test_piped_output_stays_plain(slow_project):
    result = heal_check("--short", cwd=slow_project)
    assert result.returncode == 1
    assert "FAILED" not in result.stderr and "\x1b[" not in result.stderr + result.stdout
    assert result.stdout.count("\n") == 1  # one line per failure, nothing else


def test_last_failed_runs_only_the_tests_pytest_saw_fail(slow_project):
    first = heal_check("--last-failed", "--json", cwd=slow_project)  # no cache yet: all run
    assert first.returncode == 1 and "running all tests, as pytest --lf does" in first.stderr
    assert (json.loads(first.stdout)["failed"], json.loads(first.stdout)["passed"]) == (1, 1)
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "tests/test_a.py"],
        cwd=slow_project,
        capture_output=True,
    )
    result = heal_check("--last-failed", "--json", cwd=slow_project)
    report = json.loads(result.stdout)
    assert (report["failed"], report["passed"]) == (1, 0)  # test_slow did not run
    assert report["failures"][0]["test"] == "tests/test_a.py::test_double"


def test_flaky_runs_count_the_passes(slow_project):
    result = heal_check("tests/test_a.py", "--flaky-runs", "2", "--json", cwd=slow_project)
    assert json.loads(result.stdout)["failures"][0]["flaky"] == {"runs": 3, "passed": 0}


def test_a_test_stopped_by_the_timeout_is_not_re_checked(slow_project):
    """A hang is no flaky evidence: re-running it would cost the whole timeout each time."""
    args = ("tests/test_b.py", "--flaky-runs", "2", "--test-timeout", "1", "--json")
    (failure,) = json.loads(heal_check(*args, cwd=slow_project).stdout)["failures"]
    assert failure["test"] == "tests/test_b.py::test_slow" and failure["flaky"] is None


def test_several_paths_of_one_project_run_together(slow_project, tmp_path_factory):
    write(slow_project, {"tests/test_c.py": "def test_c():\n    pass\n"})
    result = heal_check("tests/test_a.py", "tests/test_c.py", "--json", cwd=slow_project)
    report = json.loads(result.stdout)
    assert (report["failed"], report["passed"]) == (1, 1)
    other = tmp_path_factory.mktemp("other")
    write(other, {"pytest.ini": "[pytest]\n", "test_x.py": "def test_x():\n    pass\n"})
    mixed = heal_check("tests/test_a.py", other / "test_x.py", cwd=slow_project)
    assert mixed.returncode == 2 and "different projects" in mixed.stderr


def test_bench_and_fix_show_their_step_on_a_terminal(tmp_path, example_copy):
    chunks = run_in_pty(["bench", "--only", "binary_search"], tmp_path)
    while_running = "".join(text for _, text, running in chunks if running)
    assert "healing binary_search" in while_running  # the case in hand, before its row
    root = example_copy("inventory")
    chunks = run_in_pty(["fix", str(root), "--provider", "local", *NO_TRIAGE], tmp_path)
    while_running = "".join(text for _, text, running in chunks if running)
    assert "FAILED tests/test_inventory.py::test_remove_all - KeyError" in while_running
    assert "heal shop/inventory.py::Inventory.remove" in while_running  # the heal step
