"""Spectrum-based ranking: how specific a function is to failing tests (Ochiai)."""

from __future__ import annotations

import math

from heal_ls.models import Failure, RunResult


def ochiai_scores(failure: Failure, run: RunResult | None) -> dict[str, float]:
    """Ochiai score of every function key the failing test covered ("abs_path:first_line").

    ochiai = failed(f) / sqrt(all_failed * (failed(f) + passed(f))): 1.0 for a function that ran
    in every failing test and no passing one. Without a run, only this failure is known.
    """
    failing = [set(failure.covered)]
    passing: list[set[str]] = []
    if run is not None:
        failing += [set(f.covered) for f in run.failures if f.id != failure.id and f.covered]
        passing = [set(t.covered) for t in run.tests if t.outcome == "passed"]
    scores = {}
    for key in failure.covered:
        failed = sum(key in covered for covered in failing)
        passed = sum(key in covered for covered in passing)
        scores[key] = failed / math.sqrt(len(failing) * (failed + passed))
    return scores


def split_key(key: str) -> tuple[str, int] | None:
    """ "/abs/path.py:12" -> ("/abs/path.py", 12); None when malformed."""
    path, _, line = key.rpartition(":")
    return (path, int(line)) if path and line.isdigit() else None
