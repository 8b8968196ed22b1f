"""A candidate is verified only when its target tests pass run after run: a fix right some of
the time fails the repeats; runs whose times vary get more of them; the last run is the
plugin-free confirmation of the targets and guards (testing/confirm.py), and it must agree."""

from __future__ import annotations

import pytest
from heal_ls.heal import verify
from heal_ls.models import Failure, RunResult
from heal_ls.models import TestOutcome as Outcome
from heal_ls.testing.confirm import CONFIRMED, Confirmation
from heal_ls.testing.options import RunOptions

TEST = "tests/test_m.py::test_total"
GUARD = "tests/test_m.py::test_sum"


def run_of(passed: bool, seconds: float = 0.01, ids=(TEST,)) -> RunResult:
    outcome = "passed" if passed else "failed"
    tests = [Outcome(i, outcome, seconds, call=outcome) for i in ids]
    failures = (
        [] if passed else [Failure(id=TEST, exc_type="AssertionError", message="", test=TEST)]
    )
    return RunResult(
        root="/w", passed=len(ids) * passed, failed=(not passed) * len(ids), tests=tests,
        failures=failures, exitstatus=0 if passed else 1, returncode=0 if passed else 1,
        complete=True,
    )  # fmt: skip


@pytest.fixture
def runs(monkeypatch):
    """The results the next verification runs give, in order; records what each ran (the
    confirmation's ids as ("confirm", ids)). The confirmation agrees unless told otherwise."""
    planned: list[RunResult] = []
    ran: list = []
    confirmations = [Confirmation(True, CONFIRMED)]

    async def fake(root, nodeids, options):
        ran.append(list(nodeids))
        return planned.pop(0)

    async def confirm(root, nodeids, options):
        ran.append(("confirm", list(nodeids)))
        return confirmations[0]

    monkeypatch.setattr(verify, "run_sandboxed_tests", fake)
    monkeypatch.setattr(verify, "confirm_run", confirm)
    return planned, ran, confirmations


async def check(guards=(GUARD,)):
    failure = Failure(id=TEST, exc_type="AssertionError", message="", test=TEST)
    return await verify.verify_module_text(
        "/w", "/w/m.py", "x = 1\n", [failure], list(guards), RunOptions(test_timeout=1.0)
    )


async def test_a_fix_that_passes_every_run_is_verified_after_three(runs):
    planned, ran, _ = runs
    planned += [run_of(True, ids=(TEST, GUARD)), run_of(True)]
    outcome = await check()
    assert outcome.passed
    assert outcome.summary.endswith(f"(3 of 3 runs; {CONFIRMED})")
    # guards once with the targets, the targets again, then both without heal-ls's plugin
    assert ran == [[TEST, GUARD], [TEST], ("confirm", [TEST, GUARD])]


async def test_a_fix_right_only_sometimes_is_not_verified(runs):
    planned, ran, _ = runs
    planned += [run_of(True, ids=(TEST, GUARD)), run_of(False)]
    outcome = await check()
    assert not outcome.passed
    assert outcome.summary.startswith("not repeatable: passed 1 of 2 runs, then: ")
    assert len(ran) == 2  # no confirmation of a fix that already failed


async def test_a_fix_the_confirmation_disagrees_with_is_not_verified(runs):
    planned, _, confirmations = runs
    planned += [run_of(True, ids=(TEST, GUARD)), run_of(True)]
    confirmations[0] = Confirmation(False, "the plugin-free confirmation run disagrees: x")
    outcome = await check()
    assert not outcome.passed
    assert outcome.summary == (
        "not confirmed: passed 2 of 3 runs, then the plugin-free confirmation run disagrees: x"
    )


async def test_runs_whose_times_vary_get_more_repeats(runs):
    planned, ran, _ = runs
    planned += [run_of(True, 0.01, (TEST, GUARD)), run_of(True, 0.5), *[run_of(True)] * 3]
    outcome = await check()
    assert outcome.passed and len(ran) == verify.MAX_RUNS
    assert ran[-1] == ("confirm", [TEST, GUARD])
