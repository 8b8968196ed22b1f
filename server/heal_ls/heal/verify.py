"""Verify a candidate module text by running the focused tests against an overlay.

The candidate is never written to disk: the runner's import hook serves it for that one file, so
the user's files and unsaved buffers stay untouched while candidates are tried. Its target tests
must pass on repeated runs, each a process of its own (a pass by chance is no pass), and the last
run is the plugin-free confirmation (testing/confirm.py): the targets and guards in a fresh
process (a warm fork no candidate ran in, or a cold interpreter) without heal-ls's reporter, its outcome read by heal-ls from pytest's exit status and
JUnit XML, so a verdict never rests on objects the candidate's code could reach alone.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace

from heal_ls.models import Failure, RunResult
from heal_ls.testing.confirm import confirm_run
from heal_ls.testing.options import RunOptions
from heal_ls.testing.runner import run_pytest
from heal_ls.testing.script import run_script

# A candidate passes only when its target tests pass every time: at least MIN_RUNS runs (a fix
# right 60% of the time gets through 3 runs 22% of the time, 6 runs 5%), up to MAX_RUNS when the
# runs' times vary by more than VARIANCE x (the code's path, and maybe its result, varies).
MIN_RUNS, MAX_RUNS, VARIANCE = 3, 6, 3.0


@dataclass
class VerifyOutcome:
    passed: bool
    summary: str  # why it did not pass, in words that can go back to the model
    run: RunResult | None = None
    timed_out: bool = False  # a test was stopped by its per-test timeout (the candidate hangs)


def _describe_failure(failure: Failure, root: str) -> str:
    where = ""
    for frame in reversed(failure.frames):
        if frame.path.startswith(root):
            where = f" at {os.path.relpath(frame.path, root)}:{frame.line} in {frame.function}"
            break
    name = failure.test or failure.script or failure.id
    return f"{name} fails: {failure.exc_type}: {failure.message}{where}".strip()


def summarise(
    run: RunResult,
    root: str,
    failing: list[str],
    guards: Sequence[str] = (),
    original_seconds: float = 0.0,
    test_timeout: float = 0.0,
) -> VerifyOutcome:
    """Decide whether a verification run passed, and say why not.

    For tests (not scripts) a pass is strict: every target and guard has a call-phase `passed`
    report, every requested id was reported, and the session ended by itself with status 0 and a
    complete report stream. A skip, xfail, missing test, early exit or forged report is no pass.
    A test stopped by its timeout makes the outcome `timed out (N x the original's time)`, where
    `original_seconds` is what the same tests took at most on the original code and
    `test_timeout` the per-test timeout the run had.
    """
    if run.error:
        return VerifyOutcome(False, f"the tests could not run: {run.error}", run)
    if run.interrupted:
        return VerifyOutcome(False, f"{run.interrupted} (an interrupted run never passes)", run)
    if run.timed_out:
        return VerifyOutcome(False, "the test run timed out (the candidate may loop forever)", run)
    hung = [f for f in run.failures if f.timed_out]
    if hung:
        return VerifyOutcome(
            False, _timed_out(hung, root, failing, original_seconds, test_timeout), run, True
        )
    if run.failures:
        lines = []
        for failure in run.failures[:3]:
            prefix = "" if (failure.test in failing or failure.script) else "regression: "
            lines.append(prefix + _describe_failure(failure, root))
        return VerifyOutcome(False, "; ".join(lines), run)
    if not failing and not guards:  # a script: it ran to the end without an error
        if run.passed == 0 and run.failed == 0:
            return VerifyOutcome(False, "no test ran (the focused tests were not collected)", run)
        return VerifyOutcome(True, f"{run.passed} test(s) pass", run)
    problem = _not_a_real_pass(run, failing, list(guards))
    if problem:
        return VerifyOutcome(False, problem, run)
    passed = f"{len(failing)} failing test(s) now pass" if failing else "the script runs"
    held = [g for g in guards if g not in failing]  # callers may pass the targets along
    return VerifyOutcome(True, passed + (f"; {len(held)} guard(s) pass" if held else ""), run)


def _timed_out(
    hung: list[Failure], root: str, failing: Sequence[str], original: float, timeout: float
) -> str:
    """`timed out (50 x the original's time): t fails: Timeout: test did not finish within 1 s`."""
    ratio = f"{timeout / original:.0f} x the original's time" if original > 0 else "no time known"
    prefix = "" if hung[0].test in failing or hung[0].script else "regression: "
    return f"timed out ({ratio}): {prefix}{_describe_failure(hung[0], root)}"


def _not_a_real_pass(run: RunResult, failing: list[str], guards: list[str]) -> str | None:
    reported = {t.nodeid: t for t in run.tests}
    for nodeid in failing + [g for g in guards if g not in failing]:
        test = reported.get(nodeid)
        role = "" if nodeid in failing else "regression: guard "
        if test is None:
            return f"{role}{nodeid} was not reported (it did not run to its end)"
        if test.outcome != "passed" or test.call != "passed":
            how = test.call or f"{test.outcome} before its call phase"
            return f"{role}{nodeid} did not pass: {how} (only a real pass counts)"
    if not run.complete:
        return (
            "the test session did not end normally (its report is incomplete or its exit "
            f"status {run.returncode} is not pytest's own)"
        )
    if run.exitstatus != 0:
        return f"the test session ended with exit status {run.exitstatus}, not 0"
    return None


async def verify_module_text(
    root: str,
    path: str,
    module_text: str,
    failures: list[Failure],
    guards: list[str],
    options: RunOptions,
    *,
    original_seconds: float = 0.0,
) -> VerifyOutcome:
    """Run the failing tests (or script) plus guards with `module_text` served for `path` (on
    top of `options.overlay`, the unsaved buffers), untraced, in `options.sandbox`.
    `original_seconds`: the longest these tests took on the original (for a timeout's report)."""
    files = {**(options.overlay or {}), path: module_text}
    options = replace(options, overlay=files, trace=False)
    scripts = [f.script for f in failures if f.script]
    if scripts:
        run = await run_script(
            root, scripts[0], replace(options, run_timeout=options.test_timeout * 3)
        )
        outcome = summarise(run, root, [])
        if not outcome.passed or not guards:
            return outcome
    failing = [f.test for f in failures if f.test]
    nodeids = failing + [t for t in guards if t not in failing]
    run = await run_sandboxed_tests(root, nodeids, options)
    outcome = summarise(run, root, failing, nodeids, original_seconds, options.test_timeout)
    if not outcome.passed or not failing:
        return outcome
    runs = await _repeated(outcome, root, failing, original_seconds, options)
    if isinstance(runs, VerifyOutcome):
        return runs
    return await _confirmed(outcome, runs, root, nodeids, options)


async def _confirmed(
    outcome: VerifyOutcome, runs: int, root: str, nodeids: list[str], options: RunOptions
) -> VerifyOutcome:
    """`outcome` (a pass in `runs` runs) if the plugin-free confirmation of `nodeids` (targets
    and guards) agrees; else why not."""
    confirmed = await confirm_run(root, nodeids, options)
    if not confirmed.passed:
        why = f"passed {runs} of {runs + 1} runs, then {confirmed.summary}"
        return VerifyOutcome(False, f"not confirmed: {why}", outcome.run)
    outcome.summary += f" ({runs + 1} of {runs + 1} runs; {confirmed.summary})"
    return outcome


async def _repeated(
    outcome: VerifyOutcome,
    root: str,
    failing: list[str],
    original_seconds: float,
    options: RunOptions,
) -> int | VerifyOutcome:
    """How many runs passed, if the failing tests pass again on every repeat (MIN_RUNS in all
    with the plugin-free confirmation that follows; up to MAX_RUNS while their times vary);
    else why not."""
    seconds = [_seconds(outcome.run, failing)]
    for done in range(1, MAX_RUNS - 1):
        if done >= MIN_RUNS - 1 and not _varies(seconds):
            break
        rerun = await run_sandboxed_tests(root, failing, options)
        seconds.append(_seconds(rerun, failing))
        timeout = options.test_timeout
        repeat = summarise(rerun, root, failing, failing, original_seconds, timeout)
        if not repeat.passed:
            why = f"passed {done} of {done + 1} runs, then: {repeat.summary}"
            return VerifyOutcome(False, f"not repeatable: {why}", rerun, repeat.timed_out)
    return len(seconds)


def _seconds(run: RunResult | None, nodeids: list[str]) -> float:
    if run is None:
        return 0.0
    return sum(t.duration for t in run.tests if t.nodeid in nodeids)


def _varies(seconds: list[float]) -> bool:
    """Did the runs' times differ enough that the code may depend on chance (more runs then)?"""
    fastest = min(seconds)
    return max(seconds) > VARIANCE * max(fastest, 0.01)


async def run_sandboxed_tests(root: str, nodeids: list[str], options: RunOptions) -> RunResult:
    """The given tests, untraced, with `options.overlay` served instead of those files, in
    `options.sandbox` (None: outside any sandbox), with time for each test and a start."""
    run_timeout = max(30.0, options.test_timeout * (len(nodeids) + 2))
    return await run_pytest(
        root, replace(options, run_timeout=run_timeout, trace=False), nodeids=nodeids
    )
