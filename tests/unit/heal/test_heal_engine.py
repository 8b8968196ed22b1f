"""The engine core without a test run: candidates (parse, check, splice), grouping into targets,
guards from the last run, deciding a verification run, and one candidate's path through
try_candidate, with the verification settled in advance (equal candidates share one)."""

from __future__ import annotations

import asyncio

import pytest
from heal_ls import models
from heal_ls.heal.attempt import (
    CandidateRejected,
    HealContext,
    finish,
    function_from_answer,
    module_with,
    target_names,
    try_candidate,
)
from heal_ls.heal.config import HealConfig
from heal_ls.heal.guards import Guards, candidate_timeout, from_last_run, original_seconds
from heal_ls.heal.steps import _first_passing, repeats_failed
from heal_ls.heal.targets import group_targets, refresh_suspect
from heal_ls.heal.verify import VerifyOutcome, summarise
from heal_ls.locate import Located
from heal_ls.models import Attempt, Candidate, Failure, Frame, RunResult, Suspect
from heal_ls.pysource.parse import normalised
from heal_ls.pysource.paths import TestFiles

MODULE = "import os\n\n\ndef total(items):\n    return sum(items) - 1\n\n\nX = 1\n"
ORIGINAL = "def total(items):\n    return sum(items) - 1\n"
FIXED = "def total(items):\n    return sum(items)\n"


def suspect(path="/w/m.py") -> Suspect:
    return Suspect(path, "total", 4, 0, 5, 25, "raised here", def_line=4)


def failure(test="tests/test_m.py::test_total", line=5) -> Failure:
    return Failure(
        id=test,
        exc_type="AssertionError",
        message="",
        test=test,
        frames=[Frame("/w/m.py", line, "total")],
    )


def context(**changes) -> HealContext:
    fields = dict(
        root="/w",
        failures=[failure()],
        suspect=suspect(),
        module_text=MODULE,
        original_function=ORIGINAL,
        guards=Guards(tests=["tests/test_m.py::test_sum"]),
        config=HealConfig(warm=False, use_cache=False),
        overlay={},
        emit=lambda event: None,
        tests=TestFiles("/w"),
    )
    return HealContext(**{**fields, **changes})


def test_target_names_split_methods_from_nested_functions():
    assert target_names("Cart.total") == ("total", "Cart")
    assert target_names("outer.<locals>.inner") == ("inner", None)
    assert target_names("f") == ("f", None)


def test_normalised_ignores_formatting_only():
    assert normalised("def f(a):\n    return a+1\n") == normalised(
        "def f( a ):\n  return (a + 1)\n"
    )
    assert normalised("def f(a):\n    return a+1\n") != normalised("def f(a):\n    return a+2\n")


def test_function_from_answer_takes_the_def_out_of_prose_or_says_why_not():
    answer = f"Here is the fix:\n```python\n{FIXED}```\nIt no longer subtracts one."
    assert function_from_answer(answer, suspect(), ORIGINAL) == FIXED
    with pytest.raises(CandidateRejected, match="total"):
        function_from_answer("I cannot help with that.", suspect(), ORIGINAL)


def test_module_with_splices_only_the_node_and_refuses_no_ops_and_unsafe_code():
    assert module_with(MODULE, suspect(), ORIGINAL, FIXED) == MODULE.replace(" - 1", "")
    with pytest.raises(CandidateRejected, match="identical"):
        module_with(MODULE, suspect(), ORIGINAL, ORIGINAL.replace("- 1", "-  1"))
    unsafe = "def total(items):\n    os.system('rm -rf /')\n    return sum(items)\n"
    with pytest.raises(CandidateRejected):
        module_with(MODULE, suspect(), ORIGINAL, unsafe)


def test_failures_with_one_suspect_are_one_target_and_unhealable_ones_stay_alone():
    first, second, odd = failure("t::a"), failure("t::b"), failure("t::c")
    located = [
        (first, Located([suspect()], True)),
        (second, Located([suspect()], True)),
        (odd, Located([], False, "module level")),
    ]
    targets = group_targets(located)
    assert [len(t.failures) for t in targets] == [2, 1]
    assert targets[0].suspect == suspect() and targets[1].suspect is None
    assert targets[1].reason == "module level"


def test_refresh_suspect_finds_the_function_again_after_an_earlier_fix_moved_it():
    moved = "# a new first line\n" + MODULE
    again = refresh_suspect(suspect(), {"/w/m.py": moved})
    assert (again.start_line, again.qualname) == (5, "total")
    assert refresh_suspect(suspect(), {}) == suspect()


def test_regression_guards_are_the_passing_tests_that_ran_the_function():
    covered = ["/w/m.py:4"]
    run = RunResult(
        root="/w",
        tests=[
            models.TestOutcome("t::guard", "passed", covered=covered),
            models.TestOutcome("t::failing", "passed", covered=covered),
            models.TestOutcome("t::other", "passed", covered=["/w/n.py:1"]),
            models.TestOutcome("t::broken", "failed", covered=covered),
        ],
    )
    guards = from_last_run(suspect(), run, ["t::failing"])
    assert guards.tests == ["t::guard"] and guards.already_failing == ["t::broken"]
    assert from_last_run(suspect(), None, []).tests == []


def test_candidates_of_a_hanging_test_get_a_timeout_from_the_guards_durations():
    hung = Failure(id="t::f", exc_type="Timeout", message="", test="t::f", timed_out=True)
    fast = Guards(tests=["t::a", "t::b"], durations={"t::a": 0.01, "t::b": 0.2})
    assert candidate_timeout([hung], fast, 10.0) == pytest.approx(2.0)  # 10x the slowest guard
    assert candidate_timeout([hung], Guards(["t::a"], {"t::a": 0.001}), 10.0) == 1.0  # floor
    assert candidate_timeout([hung], Guards(["t::a"], {"t::a": 3.0}), 10.0) == 10.0  # never more
    assert candidate_timeout([hung], Guards(["t::a"], {"t::a": 0.01}), 0.0) == 1.0  # 0: no limit
    assert candidate_timeout([hung], Guards(), 10.0) == 10.0  # no guard: no evidence to go on
    # a test that already failed (hung) on the original is no guard and sets no pace
    slow_broken = Guards(["t::a"], {"t::a": 0.01, "t::x": 10.0}, already_failing=["t::x"])
    assert candidate_timeout([hung], slow_broken, 10.0) == 1.0


def test_candidates_of_a_failing_test_get_a_timeout_from_its_own_and_the_guards_durations():
    quick = Failure(id="t::f", exc_type="E", message="", test="t::f", duration=0.3)
    fast = Guards(tests=["t::a"], durations={"t::a": 0.05})
    assert original_seconds([quick], fast) == 0.3  # the failing test is the slowest here
    assert candidate_timeout([quick], fast, 10.0) == pytest.approx(3.0)  # 10x the original
    assert candidate_timeout([quick], Guards(["t::a"], {"t::a": 0.5}), 10.0) == 5.0  # the guard
    assert candidate_timeout([quick], Guards(), 10.0) == pytest.approx(3.0)  # its own time
    assert candidate_timeout([quick], Guards(), 2.0) == 2.0  # never above the user's timeout
    unmeasured = Failure(id="t::g", exc_type="E", message="", test="t::g")
    assert original_seconds([quick, unmeasured], fast) == 0.0  # one test's time unknown
    assert candidate_timeout([quick, unmeasured], fast, 10.0) == 10.0  # ... the full timeout


def test_a_candidate_stopped_by_its_timeout_is_reported_as_timed_out_against_the_original():
    stuck = Failure(
        id="t.py::test_f", exc_type="Timeout", message="test did not finish within 1 s",
        test="t.py::test_f", timed_out=True, duration=1.0,
    )  # fmt: skip
    run = RunResult(root="/w", failed=1, failures=[stuck], complete=True, exitstatus=1)
    outcome = summarise(run, "/w", ["t.py::test_f"], original_seconds=0.02, test_timeout=1.0)
    assert not outcome.passed and outcome.timed_out
    assert outcome.summary.startswith("timed out (50 x the original's time): t.py::test_f fails")
    unknown = summarise(run, "/w", ["t.py::test_f"], test_timeout=1.0)
    assert unknown.summary.startswith("timed out (no time known)")
    plain = summarise(RunResult(root="/w", failures=[failure()]), "/w", ["t::f"])
    assert not plain.timed_out and not plain.summary.startswith("timed out")


def test_a_multi_node_fix_answers_to_the_guards_of_every_function_it_touches():
    guards = Guards(tests=["t::a"], of={"total": ["t::a"], "unit_price": ["t::b", "t::a"]})
    assert guards.of_nodes(["unit_price", "total"], "total") == (["t::b", "t::a"], [])
    guards.of["unit_price"] = []
    assert guards.of_nodes(["unit_price", "total"], "total") == (["t::a"], ["unit_price"])
    # a nested def counts as its function; imports and new helpers as the target's change
    touched = ["<imports>", "total.<locals>.inner", "_new_helper"]
    assert guards.changed(touched, "total") == ["total"]
    assert guards.of_nodes(["_new_helper"], "total") == (["t::a"], [])
    assert Guards().of_nodes(["total"], "total") == ([], ["total"])


@pytest.mark.parametrize(
    ("run", "passed", "why"),
    [
        (RunResult(root="/w", passed=2), True, "2 test(s) pass"),
        (RunResult(root="/w", error="no python"), False, "could not run"),
        (RunResult(root="/w", passed=1, interrupted="KeyboardInterrupt"), False, "interrupted"),
        (RunResult(root="/w", timed_out=True), False, "timed out"),
        (RunResult(root="/w"), False, "no test ran"),
    ],
)
def test_summarise_passes_only_a_complete_run_with_passing_tests(run, passed, why):
    outcome = summarise(run, "/w", [])
    assert outcome.passed is passed and why in outcome.summary


def test_summarise_names_regressions_apart_from_the_failing_tests():
    run = RunResult(root="/w", passed=1, failed=1, failures=[failure("t::guard")])
    outcome = summarise(run, "/w", ["t::target"])
    assert not outcome.passed and outcome.summary.startswith("regression: t::guard fails")


def settled(ctx: HealContext, source: str, passed: bool) -> None:
    """Verification of `source` already decided: try_candidate must not start a test run."""
    done = asyncio.get_running_loop().create_future()
    done.set_result(VerifyOutcome(passed, "2 test(s) pass" if passed else "t::a fails"))
    ctx.checks[normalised(source)] = done


async def test_try_candidate_returns_the_verified_module_and_records_the_attempt():
    ctx = context()
    settled(ctx, FIXED, passed=True)
    text = await try_candidate(ctx, Candidate(FIXED, "local", 1), from_answer=False)
    assert text == MODULE.replace(" - 1", "")
    assert [(a.outcome, a.failure) for a in ctx.attempts] == [("verified", "2 test(s) pass")]


async def test_try_candidate_keeps_a_failed_one_as_best_and_a_rejected_one_out():
    ctx, events = context(), []
    ctx.emit = events.append
    settled(ctx, FIXED, passed=False)
    assert await try_candidate(ctx, Candidate(FIXED, "openai", 1), from_answer=False) is None
    assert ctx.best == FIXED
    assert await try_candidate(ctx, Candidate(ORIGINAL, "openai", 2), from_answer=False) is None
    assert [a.outcome for a in ctx.attempts] == ["failed", "rejected"]
    assert [e.kind for e in events] == ["rejected"]


async def test_equal_candidates_share_one_verification():
    ctx = context()
    settled(ctx, FIXED, passed=False)
    reformatted = FIXED.replace("sum(items)", "sum( items )")
    await try_candidate(ctx, Candidate(FIXED, "openai", 1), from_answer=False)
    await try_candidate(ctx, Candidate(reformatted, "openai", 2), from_answer=False)
    assert len(ctx.checks) == 1 and len(ctx.attempts) == 2
    assert repeats_failed(ctx, Candidate(reformatted, "openai", 3))
    assert not repeats_failed(ctx, Candidate(FIXED.replace("items)", "items) + 0"), "openai", 3))


async def test_first_passing_wins_and_cancels_the_rest():
    cancelled = []

    async def job(name, delay, passes):
        try:
            await asyncio.sleep(delay)
        except asyncio.CancelledError:
            cancelled.append(name)
            raise
        return Candidate(name, "local", 1), ("text " + name if passes else None)

    won = await _first_passing([job("slow", 5, True), job("fast", 0.01, True)])
    assert won is not None and won[0].source == "fast" and cancelled == ["slow"]
    ordered = await _first_passing([job("a", 0.05, True), job("b", 0.0, True)], in_order=True)
    assert ordered is not None and ordered[0].source == "a"
    assert await _first_passing([job("x", 0, False)]) is None


def test_finish_without_a_guard_says_weak_never_verified():
    result = finish(context(guards=Guards()), "verified", new_source=MODULE.replace(" - 1", ""))
    assert result.status == "weak"


def test_finish_diffs_the_verified_text_and_keeps_the_attempts():
    ctx = context()
    ctx.attempts.append(Attempt(Candidate(FIXED, "local", 1), "verified", "ok"))
    result = finish(ctx, "verified", new_source=MODULE.replace(" - 1", ""), reason="tests pass")
    assert result.status == "verified" and result.touched == ["total"]
    assert "-    return sum(items) - 1\n+    return sum(items)\n" in result.diff
    assert result.diff.startswith("--- a/m.py\n+++ b/m.py\n")
    assert len(result.attempts) == 1


def test_focus_lines_are_the_failing_lines_inside_the_function():
    assert context().focus_lines() == [5]
    outside = context(failures=[failure(line=40)])
    assert outside.focus_lines() == [4]  # the def line when no frame falls inside


def test_finish_labels_a_passing_fix_that_special_cases_the_tests_input_needs_review(tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_m.py").write_text(
        "from m import total\n\n\ndef test_total():\n    assert total([4, 3]) == 7\n"
    )
    cheat = MODULE.replace(
        "    return sum(items) - 1",
        "    if items == [4, 3]:\n        return 7\n    return sum(items) - 1",
    )
    ctx = context(root=str(tmp_path))
    result = finish(ctx, "verified", new_source=cheat)
    assert result.status == "review" and result.new_source == cheat
    assert "needs review" in (result.reason or "") and "7" in (result.reason or "")
    honest = finish(ctx, "verified", new_source=MODULE.replace(" - 1", ""))
    assert honest.status == "verified"
