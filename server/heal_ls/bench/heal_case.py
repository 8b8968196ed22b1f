"""Heal one benchmark bug end to end and describe the outcome as one table row (a BenchRow).

The case's root must be a throwaway copy: judging copies the hidden tests into it.
"""

from __future__ import annotations

import os
import shutil
import time

from heal_ls.bench.differential import behaves_alike
from heal_ls.bench.reference import reference_module, same_functions
from heal_ls.bench.rows import BenchRow
from heal_ls.bench.suites import BenchCase
from heal_ls.diagnose import diagnose
from heal_ls.heal.loop import heal_failure
from heal_ls.heal.targets import group_targets
from heal_ls.models import HealResult
from heal_ls.testing.runner import run_pytest


def empty_row(case: BenchCase) -> BenchRow:
    return BenchRow(name=case.name, suite=case.suite, correct=False if case.hidden_tests else None)


async def heal_case(case: BenchCase, config) -> BenchRow:
    started = time.monotonic()
    row = empty_row(case)
    try:
        await _heal_into(row, case, config, started)
    except Exception as exc:  # one broken bug must not end the benchmark
        row.note = f"error: {type(exc).__name__}: {exc}"[:200]
    row.seconds = row.seconds or round(time.monotonic() - started, 2)
    return row


async def _heal_into(row: BenchRow, case: BenchCase, config, started: float) -> None:
    """Seconds = running the tests + healing, as a user waits for it; judging is not counted."""
    run, located = await diagnose(case.root, config.run_options(), tests=case.tests or None)
    if run.error or not run.failures:
        row.note = run.error or "no failing test"
        return
    targets = [t for t in group_targets(located) if t.suspect is not None]
    if not targets:
        row.note = "no heal target: " + (group_targets(located)[0].reason or "?")
        return
    mine = [t for t in targets if _is_case_target(case, t.suspect)]
    target = (mine or targets)[0]
    row.located = bool(mine)
    result = await heal_failure(
        case.root,
        target.failures[0],
        config=config,
        run=run,
        suspect=target.suspect,
        also_failing=target.failures[1:],
    )
    row.seconds = round(time.monotonic() - started, 2)
    _record(row, result)
    if result.status in ("verified", "weak") and result.new_source is not None:
        await _judge(row, case, result, config)


def _is_case_target(case: BenchCase, suspect) -> bool:
    """The buggy function itself, or one enclosing it ("outer" for "outer.<locals>.inner")."""
    if os.path.realpath(suspect.path) != os.path.realpath(case.target):
        return False
    return suspect.qualname == case.qualname or case.qualname.startswith(suspect.qualname + ".")


def _record(row: BenchRow, result: HealResult) -> None:
    row.status = result.status
    row.weak = result.status == "weak"
    row.attempts = len(result.attempts)
    # verify.summarise starts its reason with "regression:" when the targets passed (they run
    # first, so a failing target would come first) and a guard did not
    row.guard_stops = sum(a.failure.startswith("regression:") for a in result.attempts)
    row.model_calls = sum(a.candidate.proposer not in ("local", "cache") for a in result.attempts)
    row.tokens = result.tokens
    row.heal_seconds = result.seconds
    if result.status not in ("verified", "weak"):
        row.note = (result.reason or "")[:120]


async def _judge(row: BenchRow, case: BenchCase, result: HealResult, config) -> None:
    """Fixed: the case's whole test selection passes. Equal: same AST, or behaves the same."""
    assert result.suspect is not None and result.new_source is not None, "a verified result"
    overlay = {result.suspect.path: result.new_source}
    healed = config.run_options(overlay=overlay, trace=False)
    final = await run_pytest(case.root, healed, nodeids=case.tests or None)
    row.fixed = bool(final.passed) and not (final.failed or final.errors or final.timed_out)
    if case.hidden_tests:
        hidden_pass, row.hidden_failed = await _hidden_pass(case, overlay, config)
        row.correct = row.fixed and hidden_pass
        if not hidden_pass:
            failed = ", ".join(n.rsplit("::", 1)[-1] for n in row.hidden_failed) or "no run"
            row.note = f"{result.status} but fails hidden tests: {failed}"[:200]
    if not _is_case_target(case, result.suspect):
        row.equal = f"healed {result.suspect.qualname}"
        return
    if same_functions(result.new_source, case):
        row.equal = "same"
        return
    with open(case.target, encoding="utf-8", newline="") as handle:
        original = handle.read()
    reference = reference_module(original, case)
    row.equal = await behaves_alike(
        case.root, case.target, result.new_source, reference, case.qualname, config.python
    )


async def _hidden_pass(case: BenchCase, overlay: dict[str, str], config) -> tuple[bool, list[str]]:
    """Copy the hidden test file into the copy only now (the heal never saw it) and run it on
    the healed code. Correct = every hidden test has a call-phase pass; else the ones that did not."""
    dest = os.path.join(case.root, "hidden", os.path.basename(case.hidden_tests))
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.copyfile(case.hidden_tests, dest)
    rel = os.path.relpath(dest, case.root).replace(os.sep, "/")
    run = await run_pytest(
        case.root, config.run_options(overlay=overlay, trace=False), nodeids=[rel]
    )
    failed = [t.nodeid for t in run.tests if not (t.outcome == "passed" and t.call == "passed")]
    failed += [f.test for f in run.failures if f.test and f.test not in failed]
    clean = not (run.error or run.timed_out or run.errors) and run.exitstatus == 0
    return bool(run.tests) and clean and not failed, failed
