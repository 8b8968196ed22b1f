"""Spectrum-based ranking: how specific a function is to failing tests (Ochiai, DStar)."""

from __future__ import annotations

import math

from heal_ls.models import Failure, RunResult

DSTAR_CAP = 10.0  # D* is infinite for a function no passing test ran and every failing one did


def spectrum_counts(failure: Failure, run: RunResult | None) -> dict[str, tuple[int, int, int]]:
    """(failed(f), passed(f), all_failed) for every function key the failing test covered."""
    failing = [set(failure.covered)]
    passing: list[set[str]] = []
    if run is not None:
        failing += [set(f.covered) for f in run.failures if f.id != failure.id and f.covered]
        passing = [set(t.covered) for t in run.tests if t.outcome == "passed"]
    return {
        key: (sum(key in c for c in failing), sum(key in c for c in passing), len(failing))
        for key in failure.covered
    }


def ochiai_scores(failure: Failure, run: RunResult | None) -> dict[str, float]:
    """Ochiai score of every function key the failing test covered ("abs_path:first_line").

    ochiai = failed(f) / sqrt(all_failed * (failed(f) + passed(f))): 1.0 for a function that ran
    in every failing test and no passing one. Without a run, only this failure is known.
    """
    return {
        key: failed / math.sqrt(total * (failed + passed))
        for key, (failed, passed, total) in spectrum_counts(failure, run).items()
    }


def dstar_scores(failure: Failure, run: RunResult | None) -> dict[str, float]:
    """D* (star 2) = failed(f)^2 / (passed(f) + all_failed - failed(f)), capped at DSTAR_CAP."""
    scores = {}
    for key, (failed, passed, total) in spectrum_counts(failure, run).items():
        rest = passed + total - failed
        scores[key] = min(DSTAR_CAP, failed * failed / rest) if rest else DSTAR_CAP
    return scores


def failing_only(failure: Failure, run: RunResult | None) -> set[str]:
    """Functions this failing test ran that no passing test of the run did."""
    return {key for key, (_, passed, _) in spectrum_counts(failure, run).items() if not passed}


def split_key(key: str) -> tuple[str, int] | None:
    """ "/abs/path.py:12" -> ("/abs/path.py", 12); None when malformed."""
    path, _, line = key.rpartition(":")
    return (path, int(line)) if path and line.isdigit() else None
