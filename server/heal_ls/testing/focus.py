"""A focused run: the requested tests' files run as `pytest <its file>` would, one traced run.

`heal-ls check --test tests/test_x.py::test_y` could run test_y alone, but then no passing test
ran the suspects and the spectrum cannot tell the function the test calls from the callee that
holds the bug. The user's own alternative is `pytest tests/test_x.py`; so the file runs, once,
traced: the requested tests are the report (their failures, their counts), and the file's other
passing tests are contrast for ranking only. Another test of the file that fails is not reported
(it was not asked for) and is no evidence either way.

    focus = Focus(("tests/test_x.py::test_y",))
    run = await run_pytest(root, options, nodeids=focus.files())
    if focus.missing(run):  # -x stopped early, a -k of the user's deselected it, ...
        run = await run_pytest(root, options, nodeids=list(focus.requested))
    report, evidence = focus.report(run), focus.evidence(run)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # `heal-ls check` reads first_run before the models are imported
    from heal_ls.models import Failure, RunResult, TestOutcome

# What may follow a requested id inside a reported one: a test of a file or class, a
# parametrized case, a file below a folder.
_BELOW = ("::", "[", "/")


@dataclass(frozen=True)
class Focus:
    requested: tuple[str, ...]

    def files(self) -> list[str]:
        """The ids to run: each requested id's file (a folder or file id as it is), in order."""
        return list(dict.fromkeys(nodeid.split("::", 1)[0] for nodeid in self.requested))

    def first_run(self, whole_files: bool = True) -> list[str]:
        """The ids of the first run: the files when they run more than the requested ids (and
        `whole_files`: the editor's runs of exact ids say no), else the requested ids."""
        return self.files() if whole_files and self.widens() else list(self.requested)

    def widens(self) -> bool:
        """Does running the files run more than the requested ids (is there contrast to gain)?"""
        return self.files() != list(self.requested)

    def wants(self, nodeid: str) -> bool:
        """Is `nodeid` one of the requested tests (or below one: a case, a class's test)?"""
        return any(
            nodeid == asked or any(nodeid.startswith(asked + sep) for sep in _BELOW)
            for asked in self.requested
        )

    def missing(self, run: RunResult) -> list[str]:
        """Requested ids the run did not report (and no collection error explains): the run
        stopped before them or the user's options deselected them."""
        if any(f.test is None for f in run.failures):  # a collection error is their report
            return []
        reported = [t.nodeid for t in run.tests] + [f.test for f in run.failures if f.test]
        return [
            asked for asked in self.requested if not any(Focus((asked,)).wants(n) for n in reported)
        ]

    def report(self, run: RunResult) -> RunResult:
        """The run as if only the requested tests had run: their outcomes, failures and counts
        (collection errors and run-level problems are kept: they concern the requested files)."""
        tests = [t for t in run.tests if self.wants(t.nodeid)]
        failures = [f for f in run.failures if f.test is None or self.wants(f.test)]
        passed, failed, errors, skipped = _counts(tests, failures)
        return dataclasses.replace(
            run,
            tests=tests,
            failures=failures,
            passed=passed,
            failed=failed,
            errors=errors,
            skipped=skipped,
        )

    def evidence(self, run: RunResult) -> RunResult:
        """The report plus the files' other passing tests: the spectrum's contrast."""
        report = self.report(run)
        contrast = [t for t in run.tests if t.outcome == "passed" and not self.wants(t.nodeid)]
        return dataclasses.replace(report, tests=[*report.tests, *contrast])


def _counts(tests: list[TestOutcome], failures: list[Failure]) -> tuple[int, int, int, int]:
    """passed/failed/errors/skipped as the report counts them: one per test outcome, plus a
    failure no outcome stands for (a collection error, a failure seen only in pytest's output)."""
    field = {"passed": "passed", "failed": "failed", "error": "errors", "skipped": "skipped"}
    counts = dict.fromkeys(field.values(), 0)
    for test in tests:
        counts[field.get(test.outcome, "errors")] += 1
    reported = {t.nodeid for t in tests}
    for failure in failures:
        if failure.test is None:
            counts["errors"] += 1
        elif failure.test not in reported:
            counts["failed"] += 1
    return counts["passed"], counts["failed"], counts["errors"], counts["skipped"]
