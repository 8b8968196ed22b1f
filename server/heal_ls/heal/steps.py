"""The three ways the loop looks for a fix, tried in order: cache, local search, model rounds.

Each returns a HealResult when it settles the heal (verified, or a hard stop), else None.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import time
from collections.abc import Awaitable, Iterable

from heal_ls.heal.attempt import HealContext, finish, try_candidate
from heal_ls.heal.cache import RepairCache, cache_key
from heal_ls.heal.config import HealConfig, provider_for
from heal_ls.heal.events import HealEvent
from heal_ls.heal.prompt import prompt_for
from heal_ls.llm import make_proposer
from heal_ls.llm.base import ConfigError, Prompt, Proposer, ProviderError
from heal_ls.models import (
    Attempt,
    Candidate,
    HealResult,
    HealStatus,
)
from heal_ls.pysource.parse import normalised
from heal_ls.repair.local import LocalRepairer


def _cache_key(ctx: HealContext) -> str:
    provider = provider_for(ctx.config)
    return cache_key(ctx.original_function, ctx.failures[0], provider, ctx.config.model or "")


def _remember(ctx: HealContext, won: Candidate) -> None:
    if ctx.config.use_cache:
        rank = won.attempt if won.proposer == "local" else None
        RepairCache().put(_cache_key(ctx), won.source, local_rank=rank)


def local_budget(config: HealConfig) -> tuple[int, float]:
    """How many local edits, and for how many seconds, this heal's local search may try:
    the local budget with the local provider, a cheap first try in `auto` mode with a key,
    else none (0, 0)."""
    if provider_for(config) == "local":
        return config.local_budget_count, config.local_budget_seconds
    if config.provider == "auto" and config.local_first_count > 0:
        count = min(config.local_first_count, config.local_budget_count)
        return count, min(15.0, config.local_budget_seconds)
    return 0, 0.0


async def cached_fix(ctx: HealContext) -> HealResult | None:
    """A verified fix remembered for this function and failure, re-verified before use. One the
    local repairer found as local edit #N is used only when this heal's local budget reaches N
    (a smaller `localBudget`, or no local search at all, means the search would not find it)."""
    if not ctx.config.use_cache:
        return None
    cached = RepairCache().get(_cache_key(ctx))
    if cached is None:
        return None
    count = local_budget(ctx.config)[0]
    if cached.local_rank is not None and cached.local_rank > count:
        within = f"the local budget of {count}" if count else "no local search"
        note = f"a cached fix (local edit #{cached.local_rank}) is beyond {within}: not used"
        ctx.emit(HealEvent("note", note))
        return None
    ctx.emit(HealEvent("cache", "re-verifying a cached fix"))
    # from_answer: a cached fix may be a plan (several functions, imports), not one def
    candidate = Candidate(cached.fixed, "cache", 0)
    module_text = await try_candidate(ctx, candidate, from_answer=True)
    if module_text is None:
        return None
    return finish(ctx, "verified", new_source=module_text, reason="cached fix, tests pass")


async def _first_passing(
    jobs: Iterable[Awaitable[tuple[Candidate, str | None]]], in_order: bool = False
) -> tuple[Candidate, str] | None:
    """Run jobs concurrently, each yielding (candidate, verified module text or None); the first
    to pass wins and the rest are cancelled (their test runs are killed). in_order: the first
    in the given order that passes wins, whichever finished first, so ranked candidates give the
    same fix on every run (a race between two passing ones would pick either)."""
    tasks = [asyncio.ensure_future(job) for job in jobs]
    try:
        for next_done in tasks if in_order else asyncio.as_completed(tasks):
            candidate, module_text = await next_done
            if module_text is not None:
                return candidate, module_text
        return None
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _checked(
    ctx: HealContext, candidate: Candidate, from_answer: bool
) -> tuple[Candidate, str | None]:
    return candidate, await try_candidate(ctx, candidate, from_answer=from_answer)


async def _proposed(
    ctx: HealContext, proposer: Proposer, prompt: Prompt, attempt: int
) -> tuple[Candidate, str | None]:
    """Ask for one proposal, then check and verify it."""
    total = ctx.total

    def on_chunk(text: str) -> None:
        ctx.emit(HealEvent("chunk", text, attempt, total))

    proposal = await proposer.propose(prompt, on_chunk)
    ctx.tokens += proposal.input_tokens + proposal.output_tokens
    ctx.tokens_in += proposal.input_tokens
    ctx.tokens_out += proposal.output_tokens
    ctx.emit(HealEvent("usage", ctx.usage().text(), attempt, total))
    return await _checked(ctx, Candidate(proposal.text, proposer.name, attempt), from_answer=True)


async def local_search(ctx: HealContext) -> HealResult | None:
    provider = provider_for(ctx.config)
    count, seconds = local_budget(ctx.config)
    if count == 0 or ctx.suspect.member:  # local edits change a def; a new member is the model's
        return None

    source = LocalRepairer().labelled(
        ctx.original_function, ctx.focus_lines(), ctx.suspect.start_line
    )
    deadline = time.monotonic() + seconds
    tried, ctx.total = 0, count
    workers = max(1, min(2, os.cpu_count() or 1))
    ctx.emit(HealEvent("asking", "searching small local edits"))
    while tried < count and time.monotonic() < deadline:
        batch = list(itertools.islice(source, min(workers, count - tried)))
        if not batch:
            break
        tried += len(batch)
        candidates = [
            Candidate(text, "local", tried - len(batch) + i + 1, kind)
            for i, (text, kind) in enumerate(batch)
        ]
        ctx.emit(HealEvent("candidate", f"local candidate {tried}", tried, count, "local"))
        checks = (_checked(ctx, c, from_answer=False) for c in candidates)
        try:  # repeatable: the best-ranked passing candidate wins
            remaining = deadline - time.monotonic()
            won = await asyncio.wait_for(_first_passing(checks, in_order=True), remaining)
        except asyncio.TimeoutError:
            return await _out_of_time(ctx, provider, seconds, candidates, count)
        if won:
            _remember(ctx, won[0])
            reason = f"local edit #{won[0].attempt}; tests pass"
            return finish(ctx, "verified", new_source=won[1], reason=reason)
    return None


async def _out_of_time(
    ctx: HealContext, provider: str, seconds: float, stopped: list[Candidate], count: int
) -> HealResult | None:
    """The local search's time is up while `stopped` were being verified: their runs are
    killed, and the heal says what ran and what did not (a promise: the budget is not
    overrun by the candidates already started). `auto` goes on to the model."""
    running = [check for check in ctx.checks.values() if not check.done()]
    for check in running:
        check.cancel()
    await asyncio.gather(*running, return_exceptions=True)
    ctx.checks = {key: check for key, check in ctx.checks.items() if not check.cancelled()}
    tested = sum(a.outcome != "rejected" for a in ctx.attempts if a.candidate.proposer == "local")
    cut = [c for c in stopped if not any(a.candidate is c for a in ctx.attempts)]
    why = f"stopped: the {seconds:g} s local search budget ended during its test run"
    ctx.attempts += [Attempt(c, "timeout", why) for c in cut]
    tried = stopped[-1].attempt if stopped else 0
    note = (
        f"the {seconds:g} s local search budget ended: {tested} candidate(s) tested, "
        f"{len(cut)} stopped mid-run, {count - tried} of {count} not tried"
    )
    ctx.emit(HealEvent("note", note, tried, count, "local"))
    if provider != "local":
        return None
    status: HealStatus = "unverified" if ctx.best or ctx.best_plan else "failed"
    return finish(ctx, status, reason=f"no candidate passed the tests; {note} (local)")


async def model_rounds(ctx: HealContext) -> HealResult | None:
    provider = provider_for(ctx.config)
    if provider == "local":
        return None

    try:
        proposer = make_proposer(
            provider,
            ctx.config.model,
            ctx.config.base_url,
            request_timeout=ctx.config.request_timeout,
        )
    except ConfigError as exc:
        return finish(ctx, "failed", reason=str(exc))
    try:
        return await _rounds(ctx, proposer)
    finally:
        if hasattr(proposer, "aclose"):
            await proposer.aclose()


async def _rounds(ctx: HealContext, proposer: Proposer) -> HealResult | None:
    total = ctx.total = ctx.config.max_attempts
    ctx.model = proposer.model
    for attempt in range(1, total + 1):
        if ctx.over_budget():  # stop cleanly: no new question once the cap is reached
            status: HealStatus = "unverified" if ctx.best or ctx.best_plan else "failed"
            reason = f"token budget reached ({ctx.tokens:,} of {ctx.config.max_tokens:,})"
            return finish(ctx, status, reason=reason)
        failure = ctx.failures[0]
        prompt = prompt_for(
            ctx.suspect, ctx.module_text, failure, ctx.tests, ctx.attempts, ctx.offered
        )
        ctx.emit(HealEvent("asking", f"asking {proposer.name} ({proposer.model})", attempt, total))

        jobs = [_proposed(ctx, proposer, prompt, attempt) for _ in range(ctx.config.candidates)]
        try:
            won = await _first_passing(jobs)
        except ProviderError as exc:
            return finish(ctx, "failed", reason=str(exc))
        if won:
            _remember(ctx, won[0])
            return finish(ctx, "verified", new_source=won[1], reason="tests pass")
        this_round = [a.candidate for a in ctx.attempts if a.candidate.attempt == attempt]
        if this_round and all(repeats_failed(ctx, c) for c in this_round):
            return None  # the model is repeating itself: more rounds will not help
    return None


def repeats_failed(ctx: HealContext, candidate: Candidate) -> bool:
    """True when an earlier round already tried this candidate (normalised) and it failed."""
    mine = normalised(candidate.source)
    return any(
        a.outcome != "verified"
        and a.candidate.attempt < candidate.attempt
        and normalised(a.candidate.source) == mine
        for a in ctx.attempts
    )
