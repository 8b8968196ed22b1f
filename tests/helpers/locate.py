"""A small project on disk for locate()'s unit tests: one module and its test file."""

from __future__ import annotations

from pathlib import Path

from heal_ls.locate import locate
from heal_ls.models import Failure, Frame, RunResult, TestOutcome


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the first line of `text` holding `needle`."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def write_project(tmp_path: Path, module: str, text: str, test: str) -> tuple[str, str]:
    """`module`.py holding `text` and tests/test_`module`.py holding `test`: their paths."""
    (tmp_path / f"{module}.py").write_text(text)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / f"test_{module}.py").write_text(test)
    return str(tmp_path / f"{module}.py"), str(tmp_path / "tests" / f"test_{module}.py")


def keys_of(path: str, text: str, names: tuple[str, ...]) -> list[str]:
    """The coverage keys ("path:def line") of the named top-level defs of `text`."""
    return [f"{path}:{line_of(text, f'def {name}(')}" for name in names]


def failing_test(
    test_path: str, nodeid: str, line: int, error: tuple[str, str], frames, covered, blocks=None
) -> Failure:
    """The failure of test `nodeid` at `line` of its file: `error` (type, message) raised
    through `frames` (workspace frames below the test's own), having run `covered`."""
    name = nodeid.rsplit("::", 1)[-1]
    return Failure(
        id=nodeid,
        test=nodeid,
        exc_type=error[0],
        message=error[1],
        frames=[Frame(test_path, line, name), *frames],
        test_path=test_path,
        test_line=line,
        covered=covered,
        blocks=blocks,
    )


def failed_run(root: Path, test_path: str, nodeid: str, line: int, error, frames, covered):
    """`failing_test`'s failure and the run of that one failing test under `root`."""
    failure = failing_test(test_path, nodeid, line, error, frames, covered)
    return failure, RunResult(str(root), 0, 1, failures=[failure])


def ranked_after_crash(
    tmp_path: Path, module: str, text: str, test_text: str, test: str, error, frames, defs
) -> list[str]:
    """The qualnames locate() ranks when `test` of `test_text` (its line 5) raised `error`
    through `frames` of `module` (needle of the line, function, recorded locals; outermost
    first), having run `defs`."""
    here, test_path = write_project(tmp_path, module, text, test_text)
    keys = keys_of(here, text, defs)
    crash = [Frame(here, line_of(text, line), name, held) for line, name, held in frames]
    nodeid = f"tests/test_{module}.py::{test}"
    failure, run = failed_run(tmp_path, test_path, nodeid, 5, error, crash, keys)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def ranked_after_check(
    tmp_path: Path, module: str, text: str, test: str, defs: tuple[str, ...], failing_only=()
) -> list[str]:
    """What locate() ranks when the one test of `test` failed its `assert` line having run
    `defs` of `module` (each named by a needle on its first line: a decorator's, as coverage
    keys it), and a passing test ran them too, all but those in `failing_only`."""
    here, test_path = write_project(tmp_path, module, text, test)
    keys = {start: f"{here}:{line_of(text, start)}" for start in defs}
    nodeid = f"tests/test_{module}.py::{test.split('def ')[1].split('(')[0]}"
    error = ("AssertionError", "assert 1 == 2")
    failure = failing_test(test_path, nodeid, line_of(test, "assert "), error, [], [*keys.values()])
    shared = [key for start, key in keys.items() if start not in failing_only]
    passing = [TestOutcome("tests/test_other.py::test_other", "passed", covered=shared)]
    run = RunResult(str(tmp_path), passed=1, failed=1, failures=[failure], tests=passing)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def ranked_among_passing(
    root: Path, failure: Failure, covered: list[str], blocks=None
) -> list[str]:
    """The qualnames locate() ranks for `failure` in a run where 4 passing tests ran `covered`
    (each with `blocks`, e.g. {path: []}: none of their branches)."""
    passing = [
        TestOutcome(f"tests/test_other.py::test_{n}", "passed", covered=covered, blocks=blocks)
        for n in range(4)
    ]
    run = RunResult(str(root), passed=4, failed=1, failures=[failure], tests=passing)
    return [s.qualname for s in locate(failure, str(root), run).suspects]
