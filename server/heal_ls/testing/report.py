"""Turn the plugin's JSON-lines report (plus exit code and output) into a RunResult.

Robust to partial reports: a run killed mid-test still yields every finished test, and the test
that was running becomes a failure (timeout, crash) with the best stack we have.
"""

from __future__ import annotations

import hmac
import os
import re
from typing import TypeVar

from heal_ls.models import Chained, Failure, Frame, RunResult, TestOutcome
from heal_ls.pysource.paths import is_workspace_file, relative_path
from heal_ls.pysource.traceback_text import (
    failure_from_pytest_text,
    failure_from_text,
    parse_faulthandler,
)
from heal_ls.testing.agent import heal_protocol as wire
from heal_ls.testing.agent.heal_exchange import read_exchange
from heal_ls.testing.invocation import PytestInvocation

ABORT_EXIT_CODE = 70  # the plugin's own exit when a timed-out test would not stop
PYTEST_ERROR_CODES = {2: "interrupted", 3: "internal error", 4: "usage error"}
INTERNAL = "INTERNALERROR> "  # pytest's prefix for the traceback of a hook that raised
NO_COLLECTORS = "ERROR: found no collectors for "  # pytest's words for an id in a broken module
# pytest's words for a conftest.py that raised while imported, whatever it raised
CONFTEST_FAILED = re.compile(r"^ImportError while loading conftest '(?P<path>.+)'\.$", re.M)
TESTS_FAILED = 1  # pytest's exit status when tests failed
# pytest's short test summary: `FAILED tests/test_x.py::test_y - AssertionError: ...`
SUMMARY_FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)(?: - (.*))?$", re.M)
# what is read of the files a run leaves (see agent/heal_exchange.py): a report past this is torn
REPORT_LIMIT = 256 * 1024 * 1024
STUCK_LIMIT = 1024 * 1024  # the stack dump of a test stopped at its timeout
# One line of the plugin's report: a heal_protocol dataclass (its docstring), decoded by
# heal_protocol.decode_line and read here into RunResult's typed Failure and TestOutcome.
ReportRow = wire.ReportLine
MaybePath = TypeVar("MaybePath", str, str | None)


def read_report(path: str) -> tuple[list[ReportRow], str | None]:
    """Every line of the report, decoded, and what was wrong with the first line that is not a
    report line (a torn last line, from a process that died writing it, is only left out)."""
    try:
        data = read_exchange(path, REPORT_LIMIT)
    except OSError:
        return [], None
    lines = data.split(b"\n")
    torn = lines.pop()  # after the last newline: empty, or a line the writer did not finish
    rows, refused = [], None
    for number, line in enumerate(lines, 1):
        try:
            rows.append(wire.decode_line(line))
        except wire.ReportLineError as exc:
            refused = refused or f"line {number} of the test report is refused: {exc}"
    if torn.strip():
        try:
            rows.append(wire.decode_line(torn))
        except wire.ReportLineError:
            pass
    return rows, refused


def files_named(row: ReportRow) -> tuple[list[str], bool, list[str]]:
    """The files a report line names (its test file, the functions it ran, its failure's
    frames), whether it is a failure's, and a failed test's coverage keys (the functions it
    ran, whose calls the ranking reads): what locate/prefetch reads ahead."""
    if not isinstance(row, wire.TestLine | wire.Timeout | wire.CollectError):
        return [], False, []
    test = row if isinstance(row, wire.TestLine) else None
    failure = row.failure
    failing = test is None or test.outcome in ("failed", "error") or failure is not None
    keys = [*(test.covered if test else ()), *(failure.import_covered if failure else ())]
    paths = [(test.path if test else "") or ""] + [key.rpartition(":")[0] for key in keys]
    paths += [frame.path for frame in (failure.frames if failure else ())]
    return paths, failing, list(test.covered) if test and failing else []


def failure_of(record: wire.FailureRecord) -> Failure:
    """The Failure a report line's FailureRecord describes (decode_line checked its fields)."""
    return Failure(
        id=record.id,
        exc_type=record.exc_type,
        message=record.message,
        frames=[_frame(f) for f in record.frames],
        test=record.test,
        stdout=record.stdout,
        duration=record.duration,
        timed_out=record.timed_out,
        test_path=record.test_path,
        test_line=record.test_line,
        covered=record.covered,
        mock_callers=record.mock_callers,
        import_covered=record.import_covered,
        when=record.when,
        caught=[_frame(f) for f in record.caught],
        blocks=record.blocks,
        chain=[
            Chained(c.exc_type, c.message, [_frame(f) for f in c.frames], c.cause)
            for c in record.chain
        ],
    )


def _frame(record: wire.FrameRecord) -> Frame:
    # a line-less entry (3.11+) is passed on as the plugin saw it, as it always was
    return Frame(record.path, record.line, record.function, record.locals)  # type: ignore[arg-type]


def collect_result(
    inv: PytestInvocation, returncode: int, output: str, seconds: float, timed_out: bool = False
) -> RunResult:
    result = RunResult(root=inv.root, seconds=round(seconds, 3), timed_out=timed_out)
    result.returncode = returncode
    rows, refused = read_report(inv.report_path)
    started: str | None = None
    finished: set[str] = set()
    hung: dict[str, wire.FailureRecord] = {}
    exitstatus, starts = None, 0
    for row in rows:
        if isinstance(row, wire.Start):
            started = row.nodeid
            starts += 1
        elif isinstance(row, wire.Timeout):
            hung[row.nodeid] = row.failure
        elif isinstance(row, wire.TestLine):
            finished.add(row.nodeid)
            _add_test(result, row)
            if row.interrupted:
                result.interrupted = f"the run was interrupted during {row.nodeid}"
        elif isinstance(row, wire.CollectError):
            result.errors += 1
            result.failures.append(failure_of(row.failure))
        elif isinstance(row, wire.Session):
            exitstatus = row.exitstatus
    if started is not None and started not in finished:
        _add_unfinished(result, inv, started, hung.get(started), returncode, output)
    if not rows:
        _explain_empty(result, inv, returncode, output)
    else:
        _check_session(result, exitstatus, returncode, output)
    _map_paths(result, inv.root)
    _judge_stream(result, rows, starts, returncode, _sealed(inv))
    if refused is not None:  # never read past: the run is not judged on a report it cannot read
        result.error, result.complete = refused, False
    if returncode == TESTS_FAILED and not (result.failures or result.error or result.interrupted):
        _unseen_failures(result, output)
    return result


def _unseen_failures(result: RunResult, output: str) -> None:
    """pytest says tests failed, yet no failure reached the report (tests run where the plugin
    does not look): pytest's own FAILED lines become failures, or one failure says so. Never
    a pass, never "no tests ran"."""
    found = SUMMARY_FAILED.findall(output)
    if not found:
        found = [("", f"pytest exited 1 (tests failed): {_pytest_reason(output, result.root)}")]
    for nodeid, message in found:
        failure = Failure(
            id=nodeid or "pytest:failed",
            test=nodeid if "::" in nodeid else None,
            exc_type="Failed",
            message=message or "pytest reported this test failed; heal-ls did not see it run",
        )
        result.failures.append(failure)
        result.failed += 1


def _judge_stream(
    result: RunResult, rows: list[ReportRow], starts: int, returncode: int, sealed: bool
) -> None:
    """Is the stream complete: a last session line, counts that match, the process's own exit,
    and (for sealed runs) a seal that proves the plugin wrote every line?"""
    last = rows[-1] if rows else None
    if not isinstance(last, wire.Session):
        return
    result.exitstatus = last.exitstatus
    tests = sum(isinstance(row, wire.TestLine) for row in rows)
    sessions = sum(isinstance(row, wire.Session) for row in rows)
    result.complete = (
        sessions == 1
        and last.tests == tests == starts
        and returncode == result.exitstatus
        and not result.timed_out
        and sealed
    )


def _sealed(inv: PytestInvocation) -> bool:
    """The HMAC of the report's lines before the session line equals the session line's seal."""
    if not inv.seal:
        return True
    try:
        lines = read_exchange(inv.report_path, REPORT_LIMIT).split(b"\n")
    except OSError:
        return False
    while lines and not lines[-1]:
        lines.pop()
    if not lines:
        return False
    mac = hmac.new(inv.seal, digestmod="sha256")
    for line in lines[:-1]:
        mac.update(line + b"\n")
    try:  # read as strictly as every other line: a last line that is no session line is unsealed
        last = wire.decode_line(lines[-1])
    except wire.ReportLineError:
        return False
    seal = last.seal if isinstance(last, wire.Session) else None
    return seal is not None and seal.isascii() and hmac.compare_digest(mac.hexdigest(), seal)


def _add_test(result: RunResult, row: wire.TestLine) -> None:
    outcome = TestOutcome(
        nodeid=row.nodeid,
        outcome=row.outcome,  # type: ignore[arg-type]  # TestOutcome counts an unknown as error
        duration=row.duration,
        path=row.path,
        line=row.line,
        covered=row.covered,
        call=row.call,
        blocks=row.blocks,
        xfail=bool(row.xfail),
    )
    result.tests.append(outcome)
    result.count(outcome)
    if row.failure is not None:
        result.failures.append(failure_of(row.failure))


def _add_unfinished(
    result: RunResult,
    inv: PytestInvocation,
    nodeid: str,
    hung: wire.FailureRecord | None,
    returncode: int,
    output: str,
) -> None:
    """The test that was running when the process ended without reporting it."""
    stuck = _read(inv.report_path + ".stuck")
    if hung is not None:
        failure = failure_of(hung)
    else:
        frames = parse_faulthandler(stuck or output)
        failure = Failure(id=nodeid, test=nodeid, exc_type="Timeout", message="", frames=frames)
        failure.timed_out = True
        if result.timed_out:
            failure.message = "the run timed out while this test was running"
        elif stuck:
            failure.message = "test did not stop after its timeout; the process was ended"
        else:  # a segfault or os._exit: pytest's faulthandler may have printed the stack
            failure.exc_type, failure.timed_out = "Crash", False
            failure.message = f"the test process died (exit code {returncode})"
    result.failed += 1
    result.tests.append(TestOutcome(nodeid=nodeid, outcome="failed", path=failure.test_path))
    result.failures.append(failure)


def _read(path: str) -> str:
    try:
        return read_exchange(path, STUCK_LIMIT).decode("utf-8", "replace")
    except OSError:
        return ""


def _explain_empty(result: RunResult, inv: PytestInvocation, returncode: int, output: str) -> None:
    """No report at all: pytest never started, or failed before collecting (bad conftest)."""
    if returncode in (0, 5) or (returncode == TESTS_FAILED and SUMMARY_FAILED.search(output)):
        return  # nothing failed, or tests did: _unseen_failures names them
    failure = failure_from_text(output, inv.root) or failure_from_pytest_text(output, inv.root)
    if failure is not None:
        failure.id = f"collect:{_relpath(failure, inv.root)}"
        result.errors += 1
        result.failures.append(failure)
        conftest = CONFTEST_FAILED.search(output)
        if conftest:  # a collection error like any other: a failure, not a usage error
            failure.test_path = os.path.join(inv.root, conftest["path"])
            lines = [f.line for f in failure.frames if f.path == failure.test_path]
            failure.test_line = lines[-1] if lines else None
            return
    reason = PYTEST_ERROR_CODES.get(returncode, f"exit code {returncode}")
    result.error = f"pytest failed to run ({reason}): {_pytest_reason(output, result.root)}"


def _check_session(result: RunResult, exitstatus: int | None, returncode: int, output: str) -> None:
    """An interrupted session is never a pass; a usage error (unknown test id) is an error, but
    not an id in a module that failed to collect: that collection error is the failure (and so
    is the SystemExit of a module exiting while collected, which pytest calls an internal error)."""
    if exitstatus == 4 and _ids_in_broken_modules(result, output):
        return
    if exitstatus == 3 and any(f.exc_type == "SystemExit" for f in _collect_errors(result)):
        return  # pytest's INTERNALERROR for a module that exited while imported: that failure
    if exitstatus in (3, 4):
        reason = PYTEST_ERROR_CODES[exitstatus]
        result.error = f"pytest failed to run ({reason}): {_pytest_reason(output, result.root)}"
    elif result.interrupted:
        return
    elif exitstatus == 2 and not result.errors:  # 2 with collection errors: reported as such
        result.interrupted = "pytest reported the session as interrupted"
    elif exitstatus is None and returncode < 0 and not result.timed_out:
        result.interrupted = f"the test process was ended by signal {-returncode}"


def _ids_in_broken_modules(result: RunResult, output: str) -> bool:
    """Is every id pytest did not find in a file whose collection failed (or below a broken
    conftest.py or __init__.py)? pytest says `found no collectors for ID` for those."""
    lines = [line.strip() for line in output.splitlines() if line.startswith("ERROR: ")]
    broken = [f.test_path for f in _collect_errors(result) if f.test_path]
    if not lines or not broken:
        return False
    for line in lines:
        if not line.startswith(NO_COLLECTORS):
            return False
        path = os.path.realpath(line[len(NO_COLLECTORS) :].split("::")[0])
        if not any(_explains(os.path.realpath(b), path) for b in broken):
            return False
    return True


def _collect_errors(result: RunResult) -> list[Failure]:
    return [f for f in result.failures if f.id.startswith("collect:")]


def _explains(broken: str, path: str) -> bool:
    if broken == path:
        return True
    package = os.path.basename(broken) in ("conftest.py", "__init__.py")
    return package and path.startswith(os.path.dirname(broken) + os.sep)


def _pytest_reason(output: str, root: str) -> str:
    """pytest's own words: its `ERROR: ...` line, else the last line it printed; for a traceback
    (a plugin or conftest hook that raised), the exception and the workspace line it came from."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR:")]
    reason = (errors or lines or ["no output"])[-1]
    text = "\n".join(line.removeprefix(INTERNAL) for line in output.splitlines())
    failure = failure_from_text(text, root) or failure_from_pytest_text(text, root)
    if errors or failure is None:
        return reason
    frames = [f for f in failure.frames if is_workspace_file(f.path, root)]
    reason = f"{failure.exc_type}: {failure.message}".rstrip(": ")
    if not frames:
        return reason
    where = f"{relative_path(frames[-1].path, root)}:{frames[-1].line} in {frames[-1].function}"
    return f"{reason} (raised at {where})"


def _relpath(failure: Failure, root: str) -> str:
    if not failure.frames:
        return ""
    return os.path.relpath(failure.frames[0].path, root).replace(os.sep, "/")


def _map_paths(result: RunResult, root: str) -> None:
    """The child reports real paths; give them back under the root as the caller spelled it."""
    real = os.path.realpath(root)
    if real == root:
        return

    def fix(path: MaybePath) -> MaybePath:
        if path and (path == real or path.startswith(real + os.sep)):
            return root + path[len(real) :]
        return path

    for failure in result.failures:
        failure.test_path = fix(failure.test_path)
        failure.covered = [fix(key) for key in failure.covered]
        if failure.blocks is not None:
            failure.blocks = {fix(path): lines for path, lines in failure.blocks.items()}
        for frame in failure.frames:
            frame.path = fix(frame.path)
    for test in result.tests:
        test.path = fix(test.path)
        test.covered = [fix(key) for key in test.covered]
        if test.blocks is not None:
            test.blocks = {fix(path): lines for path, lines in test.blocks.items()}
