"""A CI run's JUnit XML report as a RunResult, without running anything (`check --from`,
heal.loadReport).

Any pytest run in CI can write one (`pytest --junitxml=report.xml`). Each failure's text is
pytest's traceback in the style the CI chose (`--tb=long`, the default; `short`; `native`);
its locations are read back into frames. Paths are the CI machine's: a relative path is taken
from the project root; an absolute one is matched to the local checkout by its longest tail that
exists here. A frame's function comes from the local source (long tracebacks do not name it).
"""

from __future__ import annotations

import os
import re

from heal_ls.locate.index import index_file
from heal_ls.models import Failure, Frame, RunResult, TestOutcome
from heal_ls.pysource.traceback_text import HEADERS, failure_from_text
from heal_ls.testing.junit import Case, parse_cases

# `tests/test_x.py:31: ` / `shop/x.py:13: KeyError` (long), `shop/x.py:13: in remove` (short)
LOCATION = re.compile(r"^(?P<path>[^\s:][^:\n]*\.py):(?P<line>\d+):(?: in (?P<function>\S+)| .*)?$")
EXCEPTION_NAME = re.compile(r"^[A-Za-z_][\w.]*$")
INSTALLED = re.compile(r"[/\\](site|dist)-packages[/\\]|[/\\]lib[/\\]python\d")
MAX_REPORT = 64 * 1024 * 1024  # bytes: a bigger file is not a test report


class ReportError(Exception):
    """The file is not a JUnit XML report heal-ls can read; the message says why."""


def read_report(path: str, root: str) -> RunResult:
    """The report at `path` as a run of the project at `root`; ReportError if it is none."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_REPORT + 1)
        if len(data) > MAX_REPORT:
            raise ReportError(f"{path} is over {MAX_REPORT // 2**20} MB: not a test report")
        cases = parse_cases(data)
    except OSError as exc:
        raise ReportError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ReportError(f"{path} is not a JUnit XML report ({exc})") from None
    run = RunResult(root=root, complete=True, seconds=sum(case.seconds for case in cases))
    for case in cases:
        nodeid = nodeid_of(case.classname, case.name, root)
        # pytest collected a test from that file: a test file, whatever its name (the ranking's
        # TestFiles; a project's own python_files, `checks/*check.py`)
        module = os.path.normpath(os.path.join(root, nodeid.split("::", 1)[0]))
        test_file = module if "::" in nodeid and os.path.isfile(module) else None
        outcome = TestOutcome(nodeid, case.outcome, case.seconds, path=test_file)  # type: ignore[arg-type]
        run.tests.append(outcome)
        if case.outcome in ("failed", "error"):
            run.failures.append(failure_of(case, nodeid, root))
    run.passed = sum(case.outcome == "passed" for case in cases)
    run.failed = sum(case.outcome == "failed" for case in cases)
    run.errors = sum(case.outcome == "error" for case in cases)
    run.skipped = sum(case.outcome == "skipped" for case in cases)
    run.exitstatus = run.returncode = 1 if run.failures else 0
    return run


def nodeid_of(classname: str, name: str, root: str) -> str:
    """pytest writes `tests.test_x.TestY` + `test_z[1]`: the longest dotted prefix that is a
    file here is the module, the rest are classes: `tests/test_x.py::TestY::test_z[1]`."""
    parts = classname.split(".") if classname else []
    for cut in range(len(parts), 0, -1):
        module = "/".join(parts[:cut]) + ".py"
        if os.path.isfile(os.path.join(root, module)):
            return "::".join([module, *parts[cut:], name])
    return "::".join([*parts, name]) if parts else name


def failure_of(case: Case, nodeid: str, root: str) -> Failure:
    """The failure of one failed or erroring case, its frames read from pytest's traceback."""
    if any(header in case.text for header in HEADERS):  # --tb=native: Python's own format
        native = failure_from_text(case.text, root)
        if native is not None:
            for frame in native.frames:
                frame.path = local_path(frame.path, root)
            native.id = native.test = nodeid
            native.duration = case.seconds
            return _with_test(native, root)
    frames = [_frame(m, root) for m in map(LOCATION.match, case.text.splitlines()) if m]
    exc_type, message = _exception(case, frames)
    failure = Failure(id=nodeid, exc_type=exc_type, message=message, frames=frames)
    failure.test = nodeid
    failure.duration = case.seconds
    return _with_test(failure, root)


def _exception(case: Case, frames: list[Frame]) -> tuple[str, str]:
    """(type, message): the `E   Type: message` lines when the text has them, else the
    report's message attribute (`KeyError: 'pear'`, or `assert 0 == 1` for an assertion)."""
    said = [line[1:].strip() for line in case.text.splitlines() if line.startswith("E ")]
    first = said[0] if said else case.message.splitlines()[0] if case.message else ""
    name, sep, rest = first.partition(": ")
    if sep and EXCEPTION_NAME.match(name):
        return name, "\n".join([rest, *said[1:]]) if said else case.message.partition(": ")[2]
    kind = "AssertionError" if first.startswith("assert ") else "error"
    return kind, "\n".join(said) or case.message


def _frame(match: re.Match[str], root: str) -> Frame:
    path = local_path(match["path"], root)
    line = int(match["line"])
    function = match["function"] or _function_at(path, line)
    return Frame(path, line, function)


def local_path(path: str, root: str) -> str:
    """The CI machine's path as a path of this checkout: relative to the root, or the longest
    tail of an absolute path that exists under the root (installed packages are left alone)."""
    if not os.path.isabs(path):
        return os.path.normpath(os.path.join(root, path))
    if path.startswith(root + os.sep) or INSTALLED.search(path):
        return path
    parts = path.replace("\\", "/").split("/")
    for start in range(1, len(parts)):
        candidate = os.path.join(root, *parts[start:])
        if os.path.isfile(candidate):
            return os.path.normpath(candidate)
    return path


def _function_at(path: str, line: int) -> str:
    index = index_file(path) if path.endswith(".py") else None
    node = index.function_at(line) if index is not None else None
    return node.qualname.rsplit(".", 1)[-1] if node is not None else "<module>"


def _with_test(failure: Failure, root: str) -> Failure:
    """The test file and line: the frame in the case's own test module."""
    module = failure.id.split("::", 1)[0]
    test_path = os.path.normpath(os.path.join(root, module))
    failure.test_path = test_path
    lines = [frame.line for frame in failure.frames if frame.path == test_path]
    failure.test_line = lines[-1] if lines else None
    return failure
