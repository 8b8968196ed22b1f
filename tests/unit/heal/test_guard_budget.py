"""Verification sized to the change (heal/guard_budget.py): guards nearest first, cut by a time
budget of their measured durations; the verdict says how many of how many ran."""

from __future__ import annotations

import asyncio

from heal_ls.heal.attempt import HealContext, finish, verify
from heal_ls.heal.config import HealConfig
from heal_ls.heal.guard_budget import PER_TEST, select_guards
from heal_ls.heal.guards import Guards
from heal_ls.heal.loop import guard_line
from heal_ls.heal.verify import VerifyOutcome
from heal_ls.models import Candidate, Failure, Suspect
from heal_ls.pysource.paths import TestFiles

FAILING = ["tests/test_m.py::test_total"]
NEAR = ["tests/test_m.py::test_sum", "tests/test_m.py::test_slow"]
FAR = ["tests/test_far.py::test_a", "tests/test_far.py::test_b", "tests/test_far.py::test_c"]
DURATIONS = {
    "tests/test_m.py::test_sum": 0.5,
    "tests/test_m.py::test_slow": 4.0,
    "tests/test_far.py::test_a": 3.0,
    "tests/test_far.py::test_b": 1.0,
    "tests/test_far.py::test_c": 9.0,
}
MODULE = "def total(items):\n    return sum(items) - 1\n"


def test_the_failing_tests_files_come_first_then_the_fastest_others():
    chosen = select_guards([*FAR, *NEAR], DURATIONS, FAILING, budget=0)
    assert chosen.run == [*NEAR[:1], NEAR[1], FAR[1], FAR[0], FAR[2]] and chosen.cut == []


def test_the_budget_cuts_what_does_not_fit_and_a_later_faster_guard_still_runs():
    chosen = select_guards([*FAR, *NEAR], DURATIONS, FAILING, budget=6.0)
    # 0.5 + 4.0 near; test_b (1.0) fits, test_a (3.0) and test_c (9.0) do not
    assert chosen.run == [NEAR[0], NEAR[1], FAR[1]]
    assert chosen.cut == [FAR[0], FAR[2]]
    assert chosen.ran_text() == "3 of 5 guards ran (2 cut by the 6 s budget run after the apply)"


def test_the_nearest_guard_always_runs_so_a_budget_never_makes_a_fix_weak():
    chosen = select_guards(FAR, DURATIONS, FAILING, budget=0.1)
    assert chosen.run == [FAR[1]] and chosen.cut == [FAR[0], FAR[2]]
    assert select_guards([], DURATIONS, FAILING).ran_text() == "0 of 0 guards ran"


def test_each_guard_costs_pytest_s_own_time_too_so_thousands_of_tiny_ones_are_cut():
    """packaging: 18,743 guards of ~0.1 ms each measured ~2 s, and ran for minutes."""
    tiny = [f"tests/test_v.py::test_v[{n}]" for n in range(20_000)]
    chosen = select_guards(tiny, dict.fromkeys(tiny, 0.0001), FAILING, budget=10.0)
    assert len(chosen.run) == int(10.0 / (0.0001 + PER_TEST))
    assert chosen.run == tiny[: len(chosen.run)] and len(chosen.cut) == 20_000 - len(chosen.run)


def context(budget: float) -> HealContext:
    failure = Failure(FAILING[0], "AssertionError", "", test=FAILING[0])
    return HealContext(
        root="/w",
        failures=[failure],
        suspect=Suspect("/w/m.py", "total", 1, 0, 2, 25, "raised here", def_line=1),
        module_text=MODULE,
        original_function=MODULE,
        guards=Guards(tests=[*FAR, *NEAR], durations=DURATIONS),
        config=HealConfig(warm=False, use_cache=False, verify_seconds=budget),
        overlay={},
        tests=TestFiles("/w"),
        emit=lambda event: None,
    )


def test_a_verdict_whose_guards_were_cut_says_so_and_keeps_the_cut_ones_for_after_the_apply():
    result = finish(context(6.0), "verified", new_source=MODULE.replace(" - 1", ""))
    assert result.status == "verified"
    assert result.guards == [NEAR[0], NEAR[1], FAR[1]]
    assert result.guards_cut == [FAR[0], FAR[2]]
    assert result.proof == (
        "verified by 1 failing test now passing and 3 guards that run total() "
        "(3 of 5 guards ran (2 cut by the 6 s budget run after the apply)); "
        "confirmed by a plugin-free run"
    )
    whole = finish(context(0), "verified", new_source=MODULE.replace(" - 1", ""))
    assert whole.proof.endswith(
        "and 5 guards that run total() (5 of 5 guards ran); confirmed by a plugin-free run"
    )
    assert whole.guards_cut == []


def test_each_candidate_runs_only_the_guards_within_the_budget(monkeypatch):
    from heal_ls.heal import attempt

    seen: list[list[str]] = []

    async def verify_module_text(root, path, text, failures, guards, options, **kwargs):
        seen.append(list(guards))
        return VerifyOutcome(True, "ok")

    monkeypatch.setattr(attempt, "verify_module_text", verify_module_text)
    asyncio.run(verify(context(6.0), MODULE, Candidate(MODULE, "local", 1)))
    assert seen == [[NEAR[0], NEAR[1], FAR[1]]]


def test_the_guard_line_names_what_the_guards_ran_a_function_or_a_class_s_methods():
    ctx = context(0)
    assert guard_line(ctx) == "5 passing test(s) run total()"
    ctx.suspect = Suspect("/w/m.py", "OUI", 1, 0, 2, 25, "lacks __hash__", def_line=1)
    ctx.suspect.member = "__hash__"
    assert guard_line(ctx) == "5 passing test(s) run a method of OUI"
    ctx.guards = Guards(tests=[])
    assert guard_line(ctx) == "no passing test runs a method of OUI"


def test_the_guard_line_rounds_the_candidates_timeout():
    """async-lru's fix printed 'candidates get 5.44008 s per test'."""
    ctx = context(0)
    ctx.test_timeout, ctx.original_seconds = 5.44008, 0.544008
    assert guard_line(ctx).endswith(
        "; candidates get 5.4 s per test (these tests took at most 0.54 s on the original)"
    )


def test_the_guard_line_tells_two_methods_of_one_name_apart():
    """sortedcontainers: 'no passing test runs __contains__(); 5 run __contains__()'."""
    ctx = context(0)
    ctx.suspect = Suspect("/w/m.py", "SortedList.__contains__", 1, 0, 2, 25, "x", def_line=1)
    other = Suspect("/w/m.py", "SortedKeyList.__contains__", 5, 0, 6, 25, "x", def_line=5)
    imul = Suspect("/w/m.py", "SortedList.__imul__", 9, 0, 10, 25, "x", def_line=9)
    ctx.offered = [ctx.suspect, other, imul]
    ctx.guards = Guards(tests=[], of={other.qualname: ["t1", "t2"], imul.qualname: ["t3"]})
    assert guard_line(ctx) == (
        "no passing test runs SortedList.__contains__(); 2 run SortedKeyList.__contains__();"
        " 1 run __imul__()"
    )
