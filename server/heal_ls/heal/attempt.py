"""One heal attempt: the context a heal carries, and one candidate taken through
parse -> check -> splice -> verify (`try_candidate`); `finish` makes the HealResult.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from heal_ls.heal.answer import AnswerError, ReadAnswer, extract_function, read_answer
from heal_ls.heal.budget import Usage, usage
from heal_ls.heal.config import HealConfig
from heal_ls.heal.events import HealEvent
from heal_ls.heal.guard_budget import GuardSelection, select_guards
from heal_ls.heal.guards import Guards
from heal_ls.heal.member import plan_member
from heal_ls.heal.novelty import review_reasons
from heal_ls.heal.plan import PlanError, Planned, plan_answer
from heal_ls.heal.prompt_context import failing_test_source
from heal_ls.heal.safety import RAILS_OFF_ENV, UnsafeCandidate, check_candidate
from heal_ls.heal.verify import VerifyOutcome, verify_module_text
from heal_ls.models import (
    Attempt,
    Candidate,
    Failure,
    HealResult,
    HealStatus,
    Suspect,
)
from heal_ls.pysource.diff import unified_diff
from heal_ls.pysource.parse import normalised
from heal_ls.pysource.paths import TestFiles
from heal_ls.pysource.splice import SpliceError, splice
from heal_ls.testing.confirm import CONFIRMED
from heal_ls.testing.sandbox import NOT_ISOLATED
from heal_ls.testing.sandbox import level as sandbox_level


@dataclass
class HealContext:
    """Everything one heal needs, computed once."""

    root: str
    failures: list[Failure]
    suspect: Suspect
    module_text: str
    original_function: str
    guards: Guards
    config: HealConfig
    overlay: dict[str, str]
    emit: Callable[[HealEvent], None]
    # the files holding tests (the run's collected ones too), built once a heal (heal/loop.py)
    tests: TestFiles
    attempts: list[Attempt] = field(default_factory=list)
    tokens: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    model: str | None = None  # set when a model is asked
    # the last well-formed candidate that did not pass: one function (best) or a plan (best_plan)
    best: str | None = None
    total: int = 0  # how many attempts the current search step may make (for progress)
    warm_runner: object | None = None
    test_timeout: float = 0.0  # per test while verifying candidates (guards.candidate_timeout)
    original_seconds: float = 0.0  # the longest those tests took on the original (0: unknown)
    offered: list[Suspect] = field(default_factory=list)  # may change: the target first
    plans: dict[str, Planned] = field(default_factory=dict)  # module text -> its multi-node plan
    best_plan: Planned | None = None
    # Equal candidates (normalised) share one verification; runs are bounded by the cores.
    checks: dict[str, asyncio.Future[VerifyOutcome]] = field(default_factory=dict)
    slots: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(os.cpu_count() or 1))

    def usage(self) -> Usage:
        return usage(self.model, self.tokens_in, self.tokens_out, self.config.prices)

    def over_budget(self) -> bool:
        return 0 < self.config.max_tokens <= self.tokens

    def focus_lines(self) -> list[int]:
        s = self.suspect
        lines = [f.line for f in self.failures[0].frames if f.path == s.path]
        return [n for n in lines if s.start_line <= n <= s.end_line] or [s.def_line or s.start_line]


def finish(
    ctx: HealContext,
    status: HealStatus,
    *,
    new_source: str | None = None,
    reason: str | None = None,
) -> HealResult:
    spent = usage(ctx.model, ctx.tokens_in, ctx.tokens_out, ctx.config.prices)
    planned = ctx.plans.get(new_source) if new_source is not None else None
    chosen, unguarded = guards_of(ctx, planned)
    if status == "verified" and unguarded:
        status = "weak"  # the failing tests pass, but nothing shows the rest still works
    review = needs_review(ctx, new_source) if status in ("verified", "weak") else []
    if review:
        status, reason = "review", "needs review: the fix " + "; ".join(review)
    diff, touched, edits, notes = "", [], [], []
    relpath = os.path.relpath(ctx.suspect.path, ctx.root)
    if new_source is not None:
        diff = unified_diff(relpath, ctx.module_text, new_source)
        touched = planned.touched if planned else [ctx.suspect.qualname]
        edits = list(planned.edits) if planned else []
        notes = planned.notes if planned else []
    best_diff = ""
    if new_source is None and ctx.best_plan is not None:
        best_diff = unified_diff(relpath, ctx.module_text, ctx.best_plan.text)
    return HealResult(
        touched=touched,
        edits=edits,
        notes=notes,
        status=status,
        suspect=ctx.suspect,
        new_source=new_source,
        diff=diff,
        attempts=ctx.attempts,
        tokens=ctx.tokens,
        reason=reason,
        best_candidate=ctx.best,
        best_diff=best_diff,
        tokens_in=ctx.tokens_in,
        tokens_out=ctx.tokens_out,
        cost=spent.cost if ctx.model else None,
        model=ctx.model,
        warning=None if sandbox_level() != "none" else NOT_ISOLATED,
        targets=[f.test or f.script or f.id for f in ctx.failures],
        guards=chosen.run,
        guards_cut=chosen.cut,
        proof=proof_line(ctx, chosen, unguarded, planned) if status in PASSED else "",
        candidate_timeout=ctx.test_timeout or ctx.config.test_timeout,
    )


PASSED = ("verified", "weak", "review")  # the failing tests pass on the candidate


def needs_review(ctx: HealContext, new_source: str | None) -> list[str]:
    """What the fix adds that the allow-list does not vouch for (see heal/novelty.py)."""
    if new_source is None or os.environ.get(RAILS_OFF_ENV) == "1":
        return []  # (test-only: with the rails off, the sandbox alone is under test)
    found = (failing_test_source(failure, ctx.root) for failure in ctx.failures)
    tests = [source for _, _, source in filter(None, found)]
    return review_reasons(ctx.module_text, new_source, tests)


def guards_of(ctx: HealContext, planned: Planned | None) -> tuple[GuardSelection, list[str]]:
    """(the guards a candidate runs within the budget, unguarded functions) of a fix: the
    target's, or every touched function's (heal/guard_budget.py: nearest first)."""
    target = ctx.suspect.qualname
    tests, unguarded = ctx.guards.of_nodes(planned.touched if planned else [target], target)
    failing = [f.test for f in ctx.failures if f.test]
    chosen = select_guards(tests, ctx.guards.durations, failing, ctx.config.verify_seconds)
    return chosen, unguarded


def proof_line(
    ctx: HealContext, chosen: GuardSelection, unguarded: list[str], planned: Planned | None = None
) -> str:
    """What proved the fix: `verified by 1 failing test now passing and 12 guards that run f()
    (12 of 40 guards ran (28 cut by the 30 s budget run after the apply)); confirmed by a
    plugin-free run`."""
    targets = len(ctx.failures)
    what = "failing test" if any(f.test for f in ctx.failures) else "crashing script"
    now = "now passing" if what == "failing test" else "now running cleanly"
    head = f"{targets} {what}{'s' if targets != 1 else ''} {now}"
    confirmed = f"; {CONFIRMED}" if what == "failing test" else ""  # heal/verify.py
    if unguarded:
        names = ", ".join(f"{q.split('.')[-1]}()" for q in unguarded)
        weak = f"weak: only {head}; no passing test runs {names} to guard against regressions"
        return weak + confirmed
    target = ctx.suspect.qualname
    changed = ctx.guards.changed(planned.touched if planned else [target], target)
    functions = ", ".join(f"{q.split('.')[-1]}()" for q in changed)
    if ctx.suspect.member:  # the new member's guards: the tests that ran the class's methods
        functions = f"a method of {target.split('.')[-1]}"
    count = len(chosen.run)
    run = "that runs" if count == 1 else "that run"
    guards = f"{count} guard{'s' if count != 1 else ''} {run} {functions}"
    return f"verified by {head} and {guards} ({chosen.ran_text()}){confirmed}"


async def try_candidate(ctx: HealContext, candidate: Candidate, *, from_answer: bool) -> str | None:
    """Parse, check, splice and verify one candidate; returns the verified module text or None."""
    try:
        answer = read_answer(candidate.source) if from_answer else None  # read once, used twice
        if ctx.suspect.member:  # a class to add one member to: the answer is that member
            return await _try_planned(ctx, candidate, member_from_answer(ctx, candidate.source))
        planned = (
            planned_from_answer(answer, ctx.module_text, ctx.suspect, ctx.offered, ctx.config)
            if answer is not None
            else None
        )
        if planned is not None:
            return await _try_planned(ctx, candidate, planned)
        new_function = (
            function_from_answer(answer, ctx.suspect, ctx.original_function)
            if answer is not None
            else candidate.source
        )
        module_text = module_with(
            ctx.module_text,
            ctx.suspect,
            ctx.original_function,
            new_function,
            allow_test_edits=ctx.config.allow_test_edits,
        )
    except CandidateRejected as exc:
        ctx.attempts.append(Attempt(candidate, "rejected", str(exc)))
        ctx.emit(HealEvent("rejected", str(exc), candidate.attempt, ctx.total, candidate.proposer))
        return None
    candidate.source = new_function
    key = normalised(new_function)
    if key not in ctx.checks:
        ctx.checks[key] = asyncio.ensure_future(verify(ctx, module_text, candidate))
    outcome = await asyncio.shield(ctx.checks[key])
    ctx.attempts.append(Attempt(candidate, _outcome(outcome), outcome.summary, _seconds(outcome)))
    if outcome.passed:
        return module_text
    ctx.best, ctx.best_plan = new_function, None
    return None


def _outcome(outcome: VerifyOutcome) -> Literal["verified", "failed", "timeout"]:
    return "verified" if outcome.passed else "timeout" if outcome.timed_out else "failed"


def _seconds(outcome: VerifyOutcome) -> float:
    return round(outcome.run.seconds, 3) if outcome.run is not None else 0.0


async def _try_planned(ctx: HealContext, candidate: Candidate, planned: Planned) -> str | None:
    """Verify a multi-node plan; its notes (what the answer held that was ignored) are told."""
    for note in planned.notes:
        ctx.emit(HealEvent("note", note, candidate.attempt, ctx.total, candidate.proposer))
    ctx.plans[planned.text] = planned
    if planned.key not in ctx.checks:
        chosen, _ = guards_of(ctx, planned)
        check = verify(ctx, planned.text, candidate, chosen.run)
        ctx.checks[planned.key] = asyncio.ensure_future(check)
    outcome = await asyncio.shield(ctx.checks[planned.key])
    touched = ", ".join(planned.touched)
    summary = f"{outcome.summary} (touched: {touched})"
    ctx.attempts.append(Attempt(candidate, _outcome(outcome), summary, _seconds(outcome)))
    if outcome.passed:
        return planned.text
    ctx.best, ctx.best_plan = None, planned
    return None


async def verify(
    ctx: HealContext, module_text: str, candidate: Candidate, guards: list[str] | None = None
) -> VerifyOutcome:
    """The failing tests plus `guards` (default: the target's, within the budget) on
    `module_text`."""
    async with ctx.slots:
        chosen = guards_of(ctx, None)[0].run if guards is None else guards
        return await _verify(ctx, module_text, candidate, chosen)


async def _verify(
    ctx: HealContext, module_text: str, candidate: Candidate, guards: list[str]
) -> VerifyOutcome:
    count = len(ctx.failures) + len(guards)
    step = (candidate.attempt, ctx.total, candidate.proposer)
    ctx.emit(HealEvent("verify_start", f"verifying {count} test(s)", *step))
    outcome = await verify_module_text(
        ctx.root,
        ctx.suspect.path,
        module_text,
        ctx.failures,
        guards,
        ctx.config.run_options(
            test_timeout=ctx.test_timeout or ctx.config.test_timeout,
            overlay=ctx.overlay,
            warm=ctx.warm_runner,
            sandbox=ctx.config.sandbox,
        ),
        original_seconds=ctx.original_seconds,
    )
    ctx.emit(HealEvent("verify_end", outcome.summary, *step))
    return outcome


# ---- one candidate from text to module: parse -> safety check -> splice -----------------------


class CandidateRejected(Exception):
    """A candidate that cannot become a module; str(err) is phrased for the model."""


def target_names(qualname: str) -> tuple[str, str | None]:
    """The def's own name and, for a method, its class name (None for nested functions)."""
    parts = qualname.split(".")
    owner = parts[-2] if len(parts) > 1 and parts[-2] != "<locals>" else None
    return parts[-1], owner


def function_from_answer(answer: str | ReadAnswer, suspect: Suspect, original_function: str) -> str:
    name, owner = target_names(suspect.qualname)
    try:  # the original tells same-named defs apart (a property's getter from its setter)
        return extract_function(answer, name, owner, original=original_function)
    except AnswerError as exc:
        raise CandidateRejected(str(exc)) from None


def planned_from_answer(
    answer: str | ReadAnswer,
    module_text: str,
    suspect: Suspect,
    offered: list[Suspect],
    config: HealConfig,
) -> Planned | None:
    """The answer as a multi-node plan (nested def, other offered functions, helpers, imports),
    or None when it is a plain fix of the target alone."""
    try:
        return plan_answer(
            answer,
            module_text,
            suspect,
            offered,
            allow_imports=config.allow_imports,
            allow_test_edits=config.allow_test_edits,
        )
    except PlanError as exc:
        raise CandidateRejected(str(exc)) from None


def member_from_answer(ctx: HealContext, answer: str) -> Planned:
    try:
        return plan_member(
            answer,
            ctx.module_text,
            ctx.suspect,
            ctx.suspect.member,
            allow_test_edits=ctx.config.allow_test_edits,
        )
    except PlanError as exc:
        raise CandidateRejected(str(exc)) from None


def module_with(
    module_text: str,
    suspect: Suspect,
    original_function: str,
    new_function: str,
    *,
    allow_test_edits: bool = False,
) -> str:
    """Check the new function and splice it into the suspect's exact node."""
    if normalised(new_function) == normalised(original_function):
        raise CandidateRejected("the proposed function is identical to the original")
    try:
        check_candidate(original_function, new_function, suspect.path, allow_test_edits)
        return splice(module_text, suspect, new_function)
    except (UnsafeCandidate, SpliceError) as exc:
        raise CandidateRejected(str(exc)) from None
