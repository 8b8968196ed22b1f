"""Spectrum-based ranking: how specific a function is to failing tests (Ochiai, DStar)."""

from __future__ import annotations

import math

from heal_ls.models import Failure, RunResult
from heal_ls.pysource.paths import TestFiles

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


def failing_only_blocks(failure: Failure, run: RunResult | None) -> set[str]:
    """The blocks (entries included, keyed as `block_ochiai` keys them) this failing test ran
    that no passing test whose blocks were recorded ran; none when this test's were not."""
    if failure.blocks is None:
        return set()
    mine = block_keys(failure.covered, failure.blocks)
    for test in run.tests if run is not None else []:
        if test.outcome == "passed" and test.blocks is not None:
            mine -= block_keys(test.covered, test.blocks)
    return mine


def every_failing_ran(failure: Failure, run: RunResult | None, tests: TestFiles) -> set[str] | None:
    """The functions this failing test ran that every other failing test of the run sharing
    its cause ran too; None when no other failing test shares it. Under a single fault the
    faulty code ran in every failing test (Naish et al.'s Op1, the maximal formulas of Xie et
    al. 2013): what some of them never ran cannot explain their failure.

    A run may hold an unrelated failure too (a network test, an old breakage in another module):
    counting it would narrow the set to what that test also ran. So only the failing tests that
    ran at least one function outside the test files that this test ran count: one that shares
    none of them cannot share this fault (its code never ran), and test-file helpers (fixtures,
    conftest) run under unrelated tests alike."""
    if run is None:
        return None
    mine = set(failure.covered)
    code = {key for key in mine if not in_test_file(key, tests)}
    others = [set(f.covered) for f in run.failures if f.id != failure.id]
    others = [c for c in others if c & code]
    return mine.intersection(*others) if others else None


def blocks_every_failing_ran(failure: Failure, run: RunResult | None, tests: TestFiles) -> set[str]:
    """The blocks (keyed as `block_ochiai` keys them) this failing test ran that every other
    failing test of the run sharing its cause (as `every_failing_ran` counts them) ran too; this
    test's own blocks when none shares it; none when its blocks were not recorded."""
    if failure.blocks is None:
        return set()
    mine = block_keys(failure.covered, failure.blocks)
    code = {key for key in failure.covered if not in_test_file(key, tests)}
    for other in run.failures if run is not None else []:
        if other.id != failure.id and other.blocks is not None and code & set(other.covered):
            mine &= block_keys(other.covered, other.blocks)
    return mine


def in_test_file(key: str, tests: TestFiles) -> bool:
    """Whether a function key ("abs_path:first_line") is a test file's (malformed keys are not)."""
    parsed = split_key(key)
    return parsed is not None and parsed[0] in tests


def split_key(key: str) -> tuple[str, int] | None:
    """ "/abs/path.py:12" -> ("/abs/path.py", 12); None when malformed."""
    path, _, line = key.rpartition(":")
    return (path, int(line)) if path and line.isdigit() else None


BLOCK_MARK = ":b"  # a block's key: "abs_path:line:b" (a def's entry block is the def's own key)


def block_keys(covered: list[str], blocks: dict[str, list[int]]) -> set[str]:
    """Every block one test ran: the functions' entries and the blocks inside them."""
    keys = set(covered)
    keys.update(f"{path}:{line}{BLOCK_MARK}" for path, lines in blocks.items() for line in lines)
    return keys


def block_ochiai(failure: Failure, run: RunResult | None) -> dict[str, float]:
    """Ochiai of every block the failing test ran, over the tests whose blocks were recorded
    (a run that did not record them says nothing of its blocks); {} when this test's were not."""
    if failure.blocks is None:
        return {}
    mine = block_keys(failure.covered, failure.blocks)
    failing, passing = [mine], []
    if run is not None:
        failing += [
            block_keys(f.covered, f.blocks)
            for f in run.failures
            if f.id != failure.id and f.blocks is not None
        ]
        passing = [
            block_keys(t.covered, t.blocks)
            for t in run.tests
            if t.outcome == "passed" and t.blocks is not None
        ]
    failed = dict.fromkeys(mine, 0)
    passed = dict.fromkeys(mine, 0)
    for keys in failing:
        for key in mine.intersection(keys):
            failed[key] += 1
    for keys in passing:
        for key in mine.intersection(keys):
            passed[key] += 1
    total = len(failing)
    # in key order, not the set's: ties then resolve alike in every process (hash seeds differ)
    return {
        key: failed[key] / math.sqrt(total * (failed[key] + passed[key])) for key in sorted(mine)
    }


def split_block(key: str) -> tuple[str, int] | None:
    """ "/abs/path.py:12:b" -> ("/abs/path.py", 12); None for a function's key."""
    return split_key(key[: -len(BLOCK_MARK)]) if key.endswith(BLOCK_MARK) else None
