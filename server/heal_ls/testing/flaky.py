"""Flaky triage: run one failing test again on unchanged code and count the passes.

A test that fails one time in three is not a bug in the function it calls: healing it would
waste a model call and change correct code. Every re-run happens (no early stop), so the
count says how flaky the test is. A pass is the test's own `passed` outcome (call phase).
"""

from __future__ import annotations

from dataclasses import dataclass

from heal_ls.models import Failure, RunResult


@dataclass
class Flaky:
    runs: int  # every run, the first failing one included
    passed: int

    def to_json(self) -> dict:
        return {"runs": self.runs, "passed": self.passed}

    def label(self) -> str:
        if not self.passed:
            return f"not flaky: failed all {self.runs} runs"
        return f"flaky: passed {self.passed} of {self.runs} runs"


def worth_rechecking(failure: Failure) -> bool:
    """A test stopped by the per-test timeout is not flaky evidence: each re-run would wait the
    whole timeout again, and a hang seldom goes away by itself. Scripts are not re-checked."""
    return bool(failure.test) and not failure.timed_out


def passed_in(run: RunResult, nodeid: str) -> bool:
    return any(t.nodeid == nodeid and t.outcome == "passed" for t in run.tests)


async def recheck(root: str, nodeid: str, times: int, on_run=None, **run_kwargs) -> Flaky:
    """Run `nodeid` `times` more times (run_pytest keyword arguments pass through); the
    first, failing run counts as one. `on_run(done, times)` is called before each re-run."""
    from heal_ls.testing.runner import run_pytest

    passed = 0
    for done in range(times):
        if on_run is not None:
            on_run(done, times)
        run = await run_pytest(root, nodeids=[nodeid], trace=False, **run_kwargs)
        passed += passed_in(run, nodeid)
    return Flaky(runs=times + 1, passed=passed)
