"""A contrast for the spectrum when the run has none: the failing tests' modules, once, traced.

`heal-ls check --test X` (or an on-save run of one test) has no passing test that ran the
suspects, so Ochiai cannot tell the function the test calls from the callee that holds the bug.
Then the failing tests' modules and the suspects' importers run once on the original code with
function coverage (testing/coverage_run.py, shared with guard discovery and cached by file
contents) and their passing tests join the run for ranking. The editor has a cheaper contrast:
the passing tests of its last full run (`with_passing`).
"""

from __future__ import annotations

import dataclasses

from heal_ls.locate.rank import Located
from heal_ls.models import Failure, RunResult, TestOutcome
from heal_ls.testing.options import RunOptions


def needs_contrast(run: RunResult) -> bool:
    """Failing tests ran workspace functions, but no passing test of the run ran any of them."""
    keys = {key for failure in run.failures if failure.test for key in failure.covered}
    if not keys:
        return False
    return not any(keys.intersection(t.covered) for t in run.tests if t.outcome == "passed")


async def with_contrast(
    run: RunResult,
    located: list[tuple[Failure, Located]],
    options: RunOptions,
) -> RunResult:
    """`run` plus the passing tests of one traced run around its failures' top suspects.

    Called with the run's own options and the failing tests excluded, exactly as guard
    discovery calls it, so a heal of the top suspect finds its guards in the cache."""
    from heal_ls.testing.coverage_run import coverage_run

    failing = [failure.test for failure in run.failures if failure.test]
    paths = sorted({where.suspects[0].path for _, where in located if where.suspects})
    contrast = await coverage_run(
        run.root,
        suspect_paths=paths,
        failing=failing,
        options=options,
    )
    return with_passing(run, contrast.passing())


def with_passing(run: RunResult, passing: list[TestOutcome]) -> RunResult:
    """`run` plus those passing tests it did not run itself (for the spectrum only)."""
    known = {t.nodeid for t in run.tests}
    extra = [t for t in passing if t.outcome == "passed" and t.nodeid not in known]
    return dataclasses.replace(run, tests=[*run.tests, *extra]) if extra else run
