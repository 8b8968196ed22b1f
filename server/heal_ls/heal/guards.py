"""Guards: the passing tests that exercise the function a candidate changes.

A candidate that makes the failing test pass proves little on its own (flip `in` to `not in`
and the one failing test may pass while its siblings break). So before any candidate is trusted,
heal-ls knows which tests passed on the ORIGINAL code and ran the suspect: those from the last
run's coverage, plus a traced run of the failing tests' modules and the suspect module's importers
(testing/coverage_run.py, cached by file contents). Tests that already failed on the original are
reported, never held against a candidate. No guard at all makes a fix `weak`, not `verified`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from heal_ls.models import Failure, RunResult, Suspect, TestOutcome
from heal_ls.testing.coverage_run import coverage_run
from heal_ls.testing.options import RunOptions


@dataclass
class Guards:
    tests: list[str] = field(default_factory=list)  # node ids, in a stable order
    durations: dict[str, float] = field(default_factory=dict)  # measured on the original
    already_failing: list[str] = field(default_factory=list)  # ran the suspect, did not pass
    seconds: float = 0.0  # what discovery cost (0.0 when cached)
    error: str | None = None  # discovery could not run; the guards are then only the last run's
    limit: float = 0.0  # discovery stopped at this time limit (s): tests it did not reach
    # the guards of every function the fix may change (qualname -> node ids), target included
    of: dict[str, list[str]] = field(default_factory=dict)

    def slowest(self) -> float:
        """The longest a guard (of any function a fix may touch) took on the original (tests
        that failed there do not count)."""
        every = {*self.tests, *(t for tests in self.of.values() for t in tests)}
        return max((self.durations.get(t, 0.0) for t in every), default=0.0)

    def of_nodes(self, touched: Sequence[str], target: str) -> tuple[list[str], list[str]]:
        """(guard tests, unguarded functions) of a fix touching `touched` (qualnames). A def
        nested in a function counts as that function; imports and new helpers are new code
        that only a touched function calls, so they are guarded through it."""
        tests: list[str] = []
        unguarded: list[str] = []
        for function in self.changed(touched, target):
            mine = self.tests if function == target else self.of.get(function, [])
            tests += [t for t in mine if t not in tests]
            if not mine and function not in unguarded:
                unguarded.append(function)
        return tests, unguarded

    def changed(self, touched: Sequence[str], target: str) -> list[str]:
        """The existing functions `touched` changes, in order (a nested def as its outer one)."""
        functions = {target, *self.of}
        found = []
        for name in touched:
            owner = next(
                (f for f in functions if name == f or name.startswith(f + ".<locals>.")), None
            )
            if owner is not None and owner not in found:
                found.append(owner)
        return found or [target]  # never nothing: a fix always answers to the target's guards


HANG_FLOOR = 1.0  # seconds: a candidate test never gets less (pytest's own per-test overhead)
HANG_FACTOR = 10  # times the original's slowest: room for a slower (correct) fix, a busy machine


def original_seconds(failures: Sequence[Failure], guards: Guards) -> float:
    """The longest the tests a candidate runs took on the original code: the failing tests'
    own durations (unless one hung: its time is unknown) and the guards'. 0.0: not measured."""
    if any(f.timed_out for f in failures):
        return guards.slowest()
    if any(f.test and f.duration <= 0 for f in failures):
        return 0.0  # a failing test without a measured duration: no evidence for it
    return max([f.duration for f in failures if f.test] + [guards.slowest()])


def candidate_timeout(failures: Sequence[Failure], guards: Guards, test_timeout: float) -> float:
    """The per-test timeout candidates are verified with, sized from what the same tests took on
    the original (original_seconds): a candidate that loops forever costs about the original's
    time, not the full timeout, so a search over 100 candidates never costs 100 timeouts. Never
    more than `test_timeout`; without a measured duration, `test_timeout` itself."""
    original = original_seconds(failures, guards)
    if original <= 0:
        return test_timeout
    derived = max(HANG_FLOOR, HANG_FACTOR * original)
    return derived if test_timeout <= 0 else min(test_timeout, derived)


def suspect_keys(suspect: Suspect) -> tuple[str, ...]:
    """The coverage keys ("abs_path:first_line") the suspect's function may be recorded under."""
    lines = {suspect.start_line, suspect.def_line or suspect.start_line}
    return tuple(f"{suspect.path}:{line}" for line in sorted(lines))


def from_last_run(suspect: Suspect, run: RunResult | None, failing: list[str]) -> Guards:
    """Passing tests that exercised the suspect in an earlier run (free: already measured)."""
    guards = Guards()
    if run is None:
        return guards
    keys = set(suspect_keys(suspect))
    for test in run.tests:
        if test.nodeid in failing or not keys.intersection(test.covered):
            continue
        if test.outcome == "passed":
            guards.tests.append(test.nodeid)
            guards.durations[test.nodeid] = test.duration
        else:
            guards.already_failing.append(test.nodeid)
    return guards


async def find_guards(
    root: str,
    suspect: Suspect,
    failures: list[Failure],
    run: RunResult | None,
    options: RunOptions,
    *,
    also: Sequence[Suspect] = (),
) -> Guards:
    """The last run's guards plus those a traced run of the tests around the suspect finds.
    `also`: other functions a fix may touch (a model's multi-node plan); their guards are kept
    apart in `of`, so a fix is held to the tests of the functions it really changes."""
    failing = [f.test for f in failures if f.test]
    found = await coverage_run(
        root,
        suspect_paths=sorted({suspect.path, *(s.path for s in also)}),
        failing=failing,
        options=options,
    )
    each = {s.qualname: _guards_of(s, run, found.tests, failing) for s in (*also, suspect)}
    guards = each[suspect.qualname]
    guards.seconds, guards.error, guards.limit = found.seconds, found.error, found.limit
    for other in each.values():
        guards.durations.update(other.durations)
    guards.of = {qualname: g.tests for qualname, g in each.items()}
    return guards


def _guards_of(
    suspect: Suspect, run: RunResult | None, fresh: Sequence[TestOutcome], failing: list[str]
) -> Guards:
    """One function's guards: the last run's, then the traced run's (`fresh` outcomes)."""
    guards = from_last_run(suspect, run, failing)
    keys = set(suspect_keys(suspect))
    for test in fresh:
        nodeid = test.nodeid
        if nodeid in failing or not keys.intersection(test.covered):
            continue
        if test.outcome == "passed" and nodeid not in guards.tests:
            guards.tests.append(nodeid)
        elif test.outcome != "passed" and nodeid not in guards.already_failing:
            guards.already_failing.append(nodeid)
        guards.durations[nodeid] = test.duration
    # A test the last run saw pass but the original now fails (a flaky or changed test) is no guard.
    guards.tests = [t for t in guards.tests if t not in guards.already_failing]
    return guards
