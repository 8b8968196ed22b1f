"""collect_result on reports as the plugin writes them, including torn and partial ones."""

import json
import os

from heal_ls.testing.invocation import build_pytest_invocation
from heal_ls.testing.report import collect_result


def invocation(root, rows, torn="", stuck=""):
    inv = build_pytest_invocation(root)
    with open(inv.report_path, "w", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(row) + "\n" for row in rows) + torn)
    if stuck:
        with open(inv.report_path + ".stuck", "w", encoding="utf-8") as handle:
            handle.write(stuck)
    return inv


def outcome_row(nodeid, outcome, failure=None, path="/p/tests/test_a.py"):
    row = {"kind": "test", "nodeid": nodeid, "outcome": outcome, "duration": 0.1}
    row.update(path=path, line=3, covered=["/p/a.py:1"], failure=failure, stdout="")
    return row


def failure_dict(nodeid, exc_type="KeyError"):
    frame = {"path": "/p/a.py", "line": 2, "function": "f", "locals": {"x": "1"}}
    return {"id": nodeid, "test": nodeid, "exc_type": exc_type, "message": "'k'", "frames": [frame]}


def test_counts_failures_and_torn_last_line(tmp_path):
    rows = [
        {"kind": "start", "nodeid": "t::a"},
        outcome_row("t::a", "passed"),
        {"kind": "start", "nodeid": "t::b"},
        outcome_row("t::b", "failed", failure_dict("t::b")),
        {"kind": "collect_error", "failure": failure_dict("collect:t2", "SyntaxError")},
        {"kind": "start", "nodeid": "t::c"},
        outcome_row("t::c", "skipped"),
        {"kind": "session", "exitstatus": 1},
    ]
    inv = invocation(tmp_path, rows, torn='{"kind": "te')
    result = collect_result(inv, 1, "", 1.5)
    assert (result.passed, result.failed, result.errors, result.skipped) == (1, 1, 1, 1)
    assert [f.id for f in result.failures] == ["t::b", "collect:t2"]
    assert result.failures[0].frames[0].locals == {"x": "1"}
    assert result.tests[0].covered == ["/p/a.py:1"]
    inv.cleanup()
    assert not os.path.exists(inv.workdir)


def test_unfinished_test_after_run_timeout_gets_stack_from_dump(tmp_path):
    stuck = (
        "Current thread 0x01 (most recent call first):\n"
        '  File "/p/a.py", line 9 in spin\n'
        '  File "/p/tests/test_a.py", line 4 in test_spin\n'
    )
    rows = [{"kind": "start", "nodeid": "t::spin"}]
    result = collect_result(invocation(tmp_path, rows, stuck=stuck), -9, "", 5.0, timed_out=True)
    [failure] = result.failures
    assert failure.exc_type == "Timeout" and failure.timed_out and result.timed_out
    assert "run timed out" in failure.message
    assert [(f.function, f.line) for f in failure.frames] == [("test_spin", 4), ("spin", 9)]
    assert result.failed == 1


def test_recorded_timeout_wins_when_the_plugin_gave_up(tmp_path):
    hung = failure_dict("t::h", "Timeout") | {"timed_out": True}
    rows = [
        {"kind": "start", "nodeid": "t::h"},
        {"kind": "timeout", "nodeid": "t::h", "failure": hung},
    ]
    result = collect_result(invocation(tmp_path, rows), 70, "", 3.0)
    [failure] = result.failures
    assert failure.exc_type == "Timeout" and failure.frames[0].function == "f"


def test_crash_mid_test_is_a_crash_failure(tmp_path):
    output = (
        "Fatal Python error: Segmentation fault\n\n"
        "Current thread 0x01 (most recent call first):\n"
        '  File "/p/native.py", line 5 in poke\n'
    )
    rows = [{"kind": "start", "nodeid": "t::crash"}]
    result = collect_result(invocation(tmp_path, rows), -11, output, 1.0)
    [failure] = result.failures
    assert failure.exc_type == "Crash" and "-11" in failure.message
    assert failure.frames[-1].function == "poke"


def test_no_report_means_a_clear_error(tmp_path):
    inv = invocation(tmp_path, [])
    result = collect_result(inv, 1, "/usr/bin/python3: No module named pytest\n", 0.1)
    assert (
        result.error
        == "pytest failed to run (exit code 1): /usr/bin/python3: No module named pytest"
    )
    assert result.failures == []
    empty = collect_result(invocation(tmp_path, []), 5, "no tests ran", 0.1)
    assert empty.error is None and empty.tests == []


def test_paths_come_back_under_the_root_as_given(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    fail = failure_dict("t::b")
    fail["frames"][0]["path"] = str(real / "a.py")
    fail["covered"] = [f"{real / 'a.py'}:1"]
    rows = [outcome_row("t::b", "failed", fail, path=str(real / "tests" / "test_a.py"))]
    result = collect_result(invocation(str(link), rows), 1, "", 0.1)
    assert result.failures[0].frames[0].path == str(link / "a.py")
    assert result.failures[0].covered == [f"{link / 'a.py'}:1"]
    assert result.tests[0].path == str(link / "tests" / "test_a.py")
