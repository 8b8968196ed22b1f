"""Flaky triage: run one failing test again on unchanged code and count the passes.

A test that fails one time in three is not a bug in the function it calls: healing it would
waste a model call and change correct code. `check --flaky-runs N` makes every re-run (the
count says how flaky the test is); before a heal, `triage` stops at the first pass and sizes
the re-runs so that a test passing one run in five would have shown with 95% confidence
(14 re-runs) when the test is fast, and says what confidence its fewer re-runs gave when it is
slow. A pass is the test's own `passed` outcome (call phase).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from heal_ls.models import Failure, RunResult
from heal_ls.testing.options import FULL_RERUNS, PASS_RATE, RunOptions
from heal_ls.testing.runner import run_pytest

MIN_RERUNS = 2
TRIAGE_SECONDS = 10.0  # what the re-runs of one slow test may take before a heal


@dataclass
class Flaky:
    runs: int  # every run, the first failing one included
    passed: int

    def label(self) -> str:
        if not self.passed:
            seen = 1 - (1 - PASS_RATE) ** (self.runs - 1)
            return (
                f"not flaky: failed all {self.runs} runs (a test passing one run in five"
                f" would have passed one of them with {seen:.0%} confidence)"
            )
        return f"flaky: passed {self.passed} of {self.runs} runs"


def reruns_for(seconds: float, budget: float = TRIAGE_SECONDS) -> int:
    """How many re-runs a failing test that took `seconds` gets: FULL_RERUNS when fast, fewer
    (never under MIN_RERUNS) when that would pass the budget."""
    return max(MIN_RERUNS, min(FULL_RERUNS, int(budget / max(seconds, 0.05))))


async def triage(
    root: str, failure: Failure, seconds: float, options: RunOptions, most: int = FULL_RERUNS
) -> Flaky | None:
    """Re-run a failing test until it passes once or `reruns_for` re-runs (never more than
    `most`) all failed; None when it is not worth it (see worth_rechecking) or `most` is 0."""
    if most <= 0 or not worth_rechecking(failure) or not failure.test:
        return None
    times = min(most, reruns_for(seconds))
    return await recheck(root, failure.test, times, options, stop_at_pass=True)


def worth_rechecking(failure: Failure) -> bool:
    """A test stopped by the per-test timeout is not flaky evidence: each re-run would wait the
    whole timeout again, and a hang seldom goes away by itself. Scripts are not re-checked."""
    return bool(failure.test) and not failure.timed_out


def passed_in(run: RunResult, nodeid: str) -> bool:
    return any(t.nodeid == nodeid and t.outcome == "passed" for t in run.tests)


async def recheck(
    root: str,
    nodeid: str,
    times: int,
    options: RunOptions,
    *,
    on_run: Callable[[int, int], None] | None = None,
    stop_at_pass: bool = False,
) -> Flaky:
    """Run `nodeid` `times` more times as `options` say (untraced); the first, failing run
    counts as one. `on_run(done, times)` is called before each re-run."""
    options = replace(options, trace=False)
    passed = done = 0
    for done in range(1, times + 1):
        if on_run is not None:
            on_run(done - 1, times)
        run = await run_pytest(root, options, nodeids=[nodeid])
        passed += passed_in(run, nodeid)
        if passed and stop_at_pass:
            break
    return Flaky(runs=done + 1, passed=passed)
