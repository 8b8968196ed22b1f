"""A focused run: the requested tests' files run as `pytest <its file>` would, one traced run.

`heal-ls check --test tests/test_x.py::test_y` could run test_y alone, but then no passing test
ran the suspects and the spectrum cannot tell the function the test calls from the callee that
holds the bug. The user's own alternative is `pytest tests/test_x.py`; so the file runs, once,
traced: the requested tests are the report (their failures, their counts), and the file's other
passing tests are contrast for ranking only. Another test of the file that fails is not reported
(it was not asked for) and is no evidence either way.

On a re-check the impact map may vouch for some of the file's other tests (impact/vouch.py: the
code they ran did not change, their blocks are kept): they are deselected from the file's run
and their last run is the contrast instead (`evidence(run, recalled)`); every test the map
cannot vouch for still runs, in the file's order.

    focus = Focus(("tests/test_x.py::test_y",)).asking_the_map(root, options)
    run = await run_pytest(root, focus.first_options(options), nodeids=focus.files())
    if focus.missing(run):  # -x stopped early, a -k of the user's deselected it, ...
        run = await run_pytest(root, options, nodeids=list(focus.requested))
    report, evidence = focus.report(run), focus.evidence(run, impact.recall(focus.vouched))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from heal_ls.impact.vouch import vouched_tests
from heal_ls.impact.where import selects

if TYPE_CHECKING:  # `heal-ls check` reads first_run before the models are imported
    from heal_ls.models import Failure, RunResult, TestOutcome
    from heal_ls.testing.options import RunOptions

# What may follow a requested id inside a reported one: a test of a file or class, a
# parametrized case, a file below a folder.
_BELOW = ("::", "[", "/")


@dataclass(frozen=True)
class Focus:
    requested: tuple[str, ...]
    vouched: tuple[str, ...] = ()  # tests of the files the impact map stands for: not run

    def asking_the_map(self, root: str, options: RunOptions) -> Focus:
        """This focus with the files' tests the impact map vouches for (none when the files
        run no more than the requested tests, or the user's options select among them: their
        run would not have run them all)."""
        if not self.widens() or selects(options.pytest_args) or options.overlay:
            return self
        found = vouched_tests(root, options.python, self.files(), self.wants)
        return dataclasses.replace(self, vouched=tuple(found))

    def first_options(self, options: RunOptions) -> RunOptions:
        """The first run's options: the vouched tests deselected (exactly those)."""
        return options.excluding(self.vouched) if self.vouched else options

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

    def report(self, run: RunResult, vouched: int = 0) -> RunResult:
        """The run as if only the requested tests had run: their outcomes, failures and counts
        (collection errors and run-level problems are kept: they concern the requested files),
        and how many tests ran and how many the map vouched for (`vouched`) instead."""
        tests = [t for t in run.tests if self.wants(t.nodeid)]
        failures = [f for f in run.failures if f.test is None or self.wants(f.test)]
        counts = _counts(tests, failures)
        return dataclasses.replace(
            run,
            tests=tests,
            failures=failures,
            passed=counts.passed,
            failed=counts.failed,
            errors=counts.errors,
            skipped=counts.skipped,
            xfailed=counts.xfailed,
            xpassed=counts.xpassed,
            ran=len(run.tests),
            vouched=vouched,
        )

    def evidence(self, run: RunResult, recalled: Sequence[TestOutcome] = ()) -> RunResult:
        """The report plus the files' other passing tests, run or `recalled` from the map (the
        vouched tests' last run): the spectrum's contrast."""
        report = self.report(run, len(recalled))
        ran = [t for t in run.tests if not self.wants(t.nodeid)]
        contrast = [t for t in [*ran, *recalled] if t.outcome == "passed"]
        return dataclasses.replace(report, tests=[*report.tests, *contrast])


def _counts(tests: list[TestOutcome], failures: list[Failure]) -> RunResult:
    """The counts as the report counts them (in a RunResult of its own): one per test outcome,
    plus a failure no outcome stands for (a collection error, a failure seen only in pytest's
    output)."""
    from heal_ls.models import RunResult  # lazy: as the TYPE_CHECKING import above

    counts = RunResult("")
    for test in tests:
        counts.count(test)
    reported = {t.nodeid for t in tests}
    for failure in failures:
        if failure.test is None:
            counts.errors += 1
        elif failure.test not in reported:
            counts.failed += 1
    return counts
