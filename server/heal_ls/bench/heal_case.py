"""Heal one benchmark bug end to end and describe the outcome as one table row (a dict)."""

from __future__ import annotations

import os
import time

from heal_ls.bench.differential import behaves_alike
from heal_ls.bench.reference import reference_module, same_functions
from heal_ls.bench.suites import BenchCase
from heal_ls.models import HealResult


def empty_row(case: BenchCase) -> dict:
    return {
        "name": case.name,
        "suite": case.suite,
        "located": False,
        "status": "-",
        "fixed": False,
        "equal": "-",
        "weak": False,  # the tests pass but no passing test guarded the function
        "attempts": 0,
        "model_calls": 0,
        "tokens": 0,
        "heal_seconds": 0.0,
        "seconds": 0.0,
        "note": "",
    }


async def heal_case(case: BenchCase, config) -> dict:
    started = time.monotonic()
    row = empty_row(case)
    try:
        await _heal_into(row, case, config, started)
    except Exception as exc:  # one broken bug must not end the benchmark
        row["note"] = f"error: {type(exc).__name__}: {exc}"[:200]
    row["seconds"] = row["seconds"] or round(time.monotonic() - started, 2)
    return row


async def _heal_into(row: dict, case: BenchCase, config, started: float) -> None:
    """Seconds = running the tests + healing, as a user waits for it; judging is not counted."""
    from heal_ls.diagnose import diagnose
    from heal_ls.heal.loop import heal_failure
    from heal_ls.heal.targets import group_targets

    run, located = await diagnose(
        case.root, tests=case.tests or None, python=config.python, test_timeout=config.test_timeout
    )
    if run.error or not run.failures:
        row["note"] = run.error or "no failing test"
        return
    targets = [t for t in group_targets(located) if t.suspect is not None]
    if not targets:
        row["note"] = "no heal target: " + (group_targets(located)[0].reason or "?")
        return
    mine = [t for t in targets if _is_case_target(case, t.suspect)]
    target = (mine or targets)[0]
    row["located"] = bool(mine)
    result = await heal_failure(
        case.root,
        target.failures[0],
        config=config,
        run=run,
        suspect=target.suspect,
        also_failing=target.failures[1:],
    )
    row["seconds"] = round(time.monotonic() - started, 2)
    _record(row, result)
    if result.status in ("verified", "weak") and result.new_source is not None:
        await _judge(row, case, result, config)


def _is_case_target(case: BenchCase, suspect) -> bool:
    """The buggy function itself, or one enclosing it ("outer" for "outer.<locals>.inner")."""
    if os.path.realpath(suspect.path) != os.path.realpath(case.target):
        return False
    return suspect.qualname == case.qualname or case.qualname.startswith(suspect.qualname + ".")


def _record(row: dict, result: HealResult) -> None:
    row["status"] = result.status
    row["weak"] = result.status == "weak"
    row["attempts"] = len(result.attempts)
    row["model_calls"] = sum(
        a.candidate.proposer not in ("local", "cache") for a in result.attempts
    )
    row["tokens"] = result.tokens
    row["heal_seconds"] = result.seconds
    if result.status not in ("verified", "weak"):
        row["note"] = (result.reason or "")[:120]


async def _judge(row: dict, case: BenchCase, result: HealResult, config) -> None:
    """Fixed: the case's whole test selection passes. Equal: same AST, or behaves the same."""
    from heal_ls.testing.runner import run_pytest

    assert result.suspect is not None and result.new_source is not None, "a verified result"
    overlay = {result.suspect.path: result.new_source}
    final = await run_pytest(
        case.root,
        nodeids=case.tests or None,
        python=config.python,
        test_timeout=config.test_timeout,
        overlay=overlay,
        trace=False,
    )
    row["fixed"] = bool(final.passed) and not (final.failed or final.errors or final.timed_out)
    if not _is_case_target(case, result.suspect):
        row["equal"] = f"healed {result.suspect.qualname}"
        return
    if same_functions(result.new_source, case):
        row["equal"] = "same"
        return
    with open(case.target, encoding="utf-8", newline="") as handle:
        original = handle.read()
    reference = reference_module(original, case)
    row["equal"] = await behaves_alike(
        case.root, case.target, result.new_source, reference, case.qualname, config.python
    )
