"""The pytest plugin's report lines are heal_protocol dataclasses: written with its `encode`,
read with its `decode_line`; a line lacking a field, with a field of the wrong type or of an
unknown kind is refused with an error that says which, and the run is not judged on it."""

from __future__ import annotations

import hmac
import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from heal_ls.testing.agent import heal_protocol as wire
from heal_ls.testing.invocation import PytestInvocation, build_pytest_invocation
from heal_ls.testing.options import RunOptions
from heal_ls.testing.report import collect_result, read_report

FAILURE = {"id": "t.py::test_a", "exc_type": "AssertionError", "message": "no", "frames": []}
RECORD = wire.FailureRecord(
    "t.py::test_a", "AssertionError", "no", [wire.FrameRecord("/w/t.py", 3, "test_a", {"x": "1"})]
)
TEST = {
    "kind": wire.TEST,
    "nodeid": "t.py::test_a",
    "outcome": "failed",
    "duration": 0.1,
    "path": "/w/t.py",
    "line": 3,
    "covered": [],
    "failure": FAILURE,
    "stdout": "",
    "call": "failed",
}


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ({"kind": wire.START}, "missing 1 required positional argument: 'nodeid'"),
        ({k: v for k, v in TEST.items() if k != "outcome"}, "'outcome'"),
        ({"kind": wire.START, "nodeid": 7}, "field 'nodeid' is int, not str"),
        ({**TEST, "covered": "a.py:1"}, "field 'covered' is str, not list[str]"),
        ({**TEST, "failure": "boom"}, "field 'failure' is str, not FailureRecord | None"),
        ({**TEST, "failure": [FAILURE]}, "field 'failure' is list, not FailureRecord | None"),
        ({**TEST, "failure": {**FAILURE, "frames": {}}}, "field 'frames' is dict, not list["),
        (
            {**TEST, "failure": {**FAILURE, "frames": [7]}},
            "FrameRecord: expected an object, got int",
        ),
        (
            {**TEST, "failure": {**FAILURE, "frames": [{"path": "/w/t.py", "line": 3}]}},
            "missing 1 required positional argument: 'function'",
        ),
        ({**TEST, "failure": {**FAILURE, "message": None}}, "field 'message' is NoneType, not str"),
        ({**TEST, "failure": {k: v for k, v in FAILURE.items() if k != "id"}}, "'id'"),
        (
            {"kind": wire.TIMEOUT, "nodeid": "t.py::test_a", "failure": None},
            "is NoneType, not Fail",
        ),
        ({"kind": wire.SESSION, "exitstatus": "0", "tests": 1}, "'exitstatus' is str"),
        ({"kind": "passed", "nodeid": "t.py::test_a"}, "not a report line (kind 'passed')"),
        ({"nodeid": "t.py::test_a"}, "not a report line (kind None)"),
        (["test"], "not a report line"),
    ],
)
def test_a_line_that_is_no_report_line_is_refused_saying_why(line, says):
    with pytest.raises(wire.ReportLineError) as refused:
        wire.decode_line(json.dumps(line))
    assert says in str(refused.value)


def test_each_kind_reads_back_to_the_bytes_it_was_written_as():
    lines = [
        wire.Collected(2),
        wire.Start("t.py::test_a"),
        wire.Timeout("t.py::test_a", RECORD),
        wire.TestLine("t.py::test_a", "failed", 0.1, "/w/t.py", 3, ["/w/a.py:1"], RECORD, "x"),
        wire.CollectError(RECORD),
        wire.Abort("t.py::test_a"),
        wire.Session(1, 1, "ab12"),
    ]
    for line in lines:
        text = wire.encode(line)
        assert json.loads(text)["kind"] == line.TAG[1]
        assert wire.decode_line(text) == line
        assert wire.encode(wire.decode_line(text.encode())) == text
    # the optional fields stay off the wire when None, as they always were
    assert '"call"' not in wire.encode(lines[3]) and '"interrupted"' not in wire.encode(lines[3])
    assert "seal" not in wire.encode(wire.Session(0, 0))


def invocation(tmp_path: Path, lines: list[str]) -> PytestInvocation:
    report = tmp_path / "report.jsonl"
    report.write_text("".join(line + "\n" for line in lines))
    return PytestInvocation("python", [], {}, str(tmp_path), str(report), str(tmp_path), root="/w")


def test_a_run_whose_report_has_a_line_lacking_a_field_is_an_error_never_a_pass(tmp_path):
    passed = {**TEST, "outcome": "passed", "failure": None, "call": "passed"}
    good = [
        json.dumps({"kind": wire.COLLECTED, "count": 2}),
        json.dumps({"kind": wire.START, "nodeid": "t.py::test_a"}),
        json.dumps(passed),
        json.dumps({"kind": wire.START, "nodeid": "t.py::test_b"}),
    ]
    lacking = json.dumps({k: v for k, v in passed.items() if k != "duration"} | {"nodeid": "b"})
    session = json.dumps({"kind": wire.SESSION, "exitstatus": 0, "tests": 2})
    whole = collect_result(invocation(tmp_path, [*good, json.dumps(passed), session]), 0, "", 1.0)
    assert whole.error is None and whole.complete and whole.passed == 2

    result = collect_result(invocation(tmp_path, [*good, lacking, session]), 0, "", 1.0)
    assert result.error == (
        "line 5 of the test report is refused: a test line is malformed: TestLine.__init__()"
        " missing 1 required positional argument: 'duration'"
    )
    assert not result.complete


def _sealed_lines(key: bytes, lines: list[str], tests: int) -> list[str]:
    """`lines` and a session line sealed with `key`, as the plugin writes them."""
    mac = hmac.new(key, digestmod="sha256")
    for line in lines:
        mac.update(line.encode() + b"\n")
    return [*lines, wire.encode(wire.Session(0, tests, mac.hexdigest()))]


@pytest.mark.parametrize(
    ("last", "refused"),
    [
        ("[1]", True),  # JSON, but not an object
        ('"sealed"', True),
        ("null", True),
        ('{"kind": "session", "exitstatus": 0, "tests": 1, "seal": 5}', True),
        ('{"kind": "session", "exitstatus": 0, "tests": 1, "seal": "\\u00e9"}', False),
        ('{"kind": "abort", "nodeid": "t.py::test_a"}', False),
    ],
)
def test_a_sealed_run_whose_last_line_is_no_sealed_session_is_incomplete_not_a_crash(
    tmp_path, last, refused
):
    passed = json.dumps({**TEST, "outcome": "passed", "failure": None, "call": "passed"})
    start = json.dumps({"kind": wire.START, "nodeid": TEST["nodeid"]})
    lines = _sealed_lines(b"key", [start, passed], tests=1)
    inv = replace(invocation(tmp_path, lines), seal=b"key")
    assert collect_result(inv, 0, "", 1.0).complete  # sealed as the plugin seals it
    for torn in (False, True):  # appended as a whole line, or left unfinished
        text = "".join(f"{line}\n" for line in lines) + last + ("" if torn else "\n")
        Path(inv.report_path).write_text(text)
        result = collect_result(inv, 0, "", 1.0)
        assert not result.complete, (last, torn)
        if refused and not torn:
            assert result.error is not None
            assert result.error.startswith("line 4 of the test report is refused: "), result.error


def test_a_run_whose_failure_record_is_malformed_is_an_error_never_a_pass(tmp_path):
    frame = {"path": "/w/t.py", "line": 3}  # no "function"
    bad = json.dumps({**TEST, "failure": {**FAILURE, "frames": [frame]}})
    start = json.dumps({"kind": wire.START, "nodeid": TEST["nodeid"]})
    session = json.dumps({"kind": wire.SESSION, "exitstatus": 1, "tests": 1})
    result = collect_result(invocation(tmp_path, [start, bad, session]), 1, "", 1.0)
    assert result.error == (
        "line 2 of the test report is refused: a test line is malformed: FrameRecord.__init__()"
        " missing 1 required positional argument: 'function'"
    )
    assert not result.complete and result.passed == 0  # its test is not taken as run


def test_a_torn_last_line_is_left_out_not_refused(tmp_path):
    inv = invocation(tmp_path, [json.dumps({"kind": wire.START, "nodeid": "t.py::test_a"})])
    Path(inv.report_path).write_text(Path(inv.report_path).read_text() + '{"kind": "test", "no')
    rows, refused = read_report(inv.report_path)
    assert rows == [wire.Start("t.py::test_a")] and refused is None


def test_the_plugin_writes_lines_the_reader_takes_byte_for_byte(tmp_path):
    """A real pytest run with the plugin: every line decodes, and encodes back to its bytes
    (so the seal, an HMAC over those bytes, and every other reader see what they always did)."""
    (tmp_path / "test_a.py").write_text(
        "import pytest\n\n"
        "def test_ok():\n    print('hi')\n\n"
        "def test_bad():\n    assert 1 == 2\n\n"
        "@pytest.fixture\ndef broken():\n    raise ValueError('setup')\n\n"
        "def test_setup_error(broken):\n    pass\n"
    )
    inv = build_pytest_invocation(tmp_path, RunOptions(trace=True))
    try:
        done = subprocess.run(inv.command, cwd=inv.cwd, env=inv.env, capture_output=True)
        written = Path(inv.report_path).read_bytes()
        run = collect_result(inv, done.returncode, done.stdout.decode(), 1.0)
    finally:
        inv.cleanup()
    assert run.complete and (run.passed, run.failed, run.errors) == (1, 1, 1)  # the seal held
    lines = written.splitlines()
    seen = [wire.decode_line(line) for line in lines]
    assert [wire.encode(row).encode() for row in seen] == lines
    assert [type(row) for row in seen] == [
        wire.Collected,
        *[wire.Start, wire.TestLine] * 3,
        wire.Session,
    ]
    tests = [row for row in seen if isinstance(row, wire.TestLine)]
    assert [(t.outcome, t.call) for t in tests] == [
        ("passed", "passed"),
        ("failed", "failed"),
        ("error", None),
    ]
