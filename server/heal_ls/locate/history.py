"""History as ranking evidence: a function changed since the last green run ranks higher.

When the whole suite last passed, the code was right as far as the tests could tell; a failure
now is likelier in a function edited since than in one that has not moved (a regression). The
impact map keeps each function's fingerprint at the last green run (impact/green.py);
`with_history` asks it which functions the failing tests ran have changed since, and
`changed_bonus` lifts those suspects by GREEN_BONUS: enough to pass an unchanged suspect one
step above it (a caller over the raise site it called, a deeper callee over the function called
on the failing line), not enough to pass evidence a tier up (ran-during-the-test under a call on
the failing line). With no green run known (a fresh map, or a project never green) nothing
changes.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Iterable

from heal_ls.impact.store import ImpactMap
from heal_ls.models import RunResult, Suspect

logger = logging.getLogger(__name__)

GREEN_BONUS = 0.15
CHANGED_REASON = "changed since the last green run"


def with_history(run: RunResult, root: str, python: str | None = None) -> RunResult:
    """`run` with `changed_since_green` filled for the functions its failing tests ran (the
    map is advice: unreadable, the run goes on without it). Reads, never runs."""
    keys = sorted({key for failure in run.failures for key in failure.covered})
    if not keys:
        return run
    try:
        if not ImpactMap.exists(root, python):
            return run
        with ImpactMap.open(root, python) as impact:
            changed = impact.changed_since_green(keys)
    except Exception as exc:  # noqa: BLE001
        logger.info("impact map unreadable for history: %s", exc)
        return run
    return dataclasses.replace(run, changed_since_green=changed) if changed else run


def changed_bonus(suspects: Iterable[Suspect], run: RunResult | None) -> None:
    """Lift the suspects whose function changed since the last green run (in place)."""
    changed = {_normal(key) for key in run.changed_since_green} if run is not None else set()
    if not changed:
        return
    for suspect in suspects:
        if _normal(f"{suspect.path}:{suspect.start_line}") in changed:
            suspect.score += GREEN_BONUS
            suspect.reason = f"{suspect.reason}; {CHANGED_REASON}"


def _normal(key: str) -> str:
    path, _, line = key.rpartition(":")
    return f"{os.path.normcase(os.path.abspath(path))}:{line}"
