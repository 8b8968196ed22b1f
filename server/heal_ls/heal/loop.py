"""The heal loop: cache -> local search -> model rounds, each candidate verified on an overlay.

`heal_failure` is the one entry point used by `heal-ls fix`, the bench and the language server.
It never writes a file: the result carries the verified module text for the caller to apply.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from heal_ls.heal.attempt import HealContext, finish, guards_of
from heal_ls.heal.config import HealConfig, provider_for
from heal_ls.heal.events import HealEvent, never_back
from heal_ls.heal.guards import Guards, candidate_timeout, find_guards, original_seconds
from heal_ls.heal.member import class_source, methods_of, ran_a_method
from heal_ls.heal.steps import cached_fix, local_search, model_rounds
from heal_ls.locate import locate
from heal_ls.models import (
    Failure,
    HealResult,
    HealStatus,
    RunResult,
    Suspect,
)
from heal_ls.pysource.paths import TestFiles, relative_path
from heal_ls.pysource.source import read_source
from heal_ls.pysource.splice import function_source
from heal_ls.testing.warm.client import get_warm_runner

if TYPE_CHECKING:
    from heal_ls.testing.warm.client import WarmRunner

MAX_REFUSAL = 240  # characters of a refused answer's reason in the heal's final message


async def heal_failure(
    root: str,
    failure: Failure,
    *,
    config: HealConfig,
    run: RunResult | None = None,
    suspect: Suspect | None = None,
    overlay: dict[str, str] | None = None,
    on_event: Callable[[HealEvent], None] | None = None,
    also_failing: list[Failure] | None = None,
) -> HealResult:
    started = time.monotonic()
    root = os.path.abspath(root)
    tests = TestFiles.of_run(root, run, failure, also_failing)  # once a heal, handed down
    if suspect is None:
        located = locate(failure, root, run, tests=tests)
        if not located.healable or not located.suspects:
            return HealResult("skipped", reason=located.reason or "no function to heal")
        suspect = located.suspects[0]
    if suspect.path in tests and not config.allow_test_edits:
        return HealResult("skipped", suspect=suspect, reason=_a_test_file(suspect.path, root))
    ctx = _context(
        root, failure, suspect, config, run, overlay or {}, on_event, also_failing, tests
    )
    ctx.emit(HealEvent("guards", "finding the passing tests that exercise the function"))
    options = config.run_options(overlay=ctx.overlay, warm=ctx.warm_runner)
    # a multi-node fix answers to the guards of what it touches; a new member to those of
    # every method of its class
    also = methods_of(ctx.module_text, suspect) if suspect.member else ctx.offered[1:]
    ctx.guards = await find_guards(root, suspect, ctx.failures, run, options, also=also)
    if suspect.member:
        ctx.guards.tests = ran_a_method(ctx.guards)
    ctx.test_timeout = candidate_timeout(ctx.failures, ctx.guards, config.test_timeout)
    ctx.original_seconds = original_seconds(ctx.failures, ctx.guards)
    ctx.emit(HealEvent("guards", guard_line(ctx)))
    try:
        result = await _search(ctx)
    finally:  # shared verifications outlive their waiters: stop them with the heal
        for check in ctx.checks.values():
            check.cancel()
    result.seconds = round(time.monotonic() - started, 3)
    ctx.emit(HealEvent("done", f"{result.status}: {result.reason or ''}".strip(": ")))
    return result


def _a_test_file(path: str, root: str) -> str:
    # the run's collected files, not only test_*.py: pytest's python_files may say `*test.py`
    return (
        f"{relative_path(path, root)} holds tests pytest collected, and tests are the spec:"
        " heal-ls fixes the code under test (--allow-test-edits to heal a test)"
    )


def _context(
    root: str,
    failure: Failure,
    suspect: Suspect,
    config: HealConfig,
    run: RunResult | None,
    overlay: dict[str, str],
    on_event: Callable[[HealEvent], None] | None,
    also_failing: list[Failure] | None,
    tests: TestFiles,
) -> HealContext:
    module_text = overlay.get(suspect.path)
    if module_text is None:
        module_text = read_source(suspect.path)
    failures = [failure, *(also_failing or [])]
    return HealContext(
        root=root,
        failures=failures,
        suspect=suspect,
        module_text=module_text,
        original_function=(
            class_source(module_text, suspect)
            if suspect.member
            else function_source(module_text, suspect)
        ),
        guards=Guards(),
        config=config,
        overlay=overlay,
        emit=never_back(on_event or (lambda event: None)),
        warm_runner=warm_runner_for(config, root),
        offered=(
            [suspect]
            if suspect.member
            else offered_suspects(suspect, failure, tests, run, overlay, config.max_nodes)
        ),
        tests=tests,
    )


def offered_suspects(
    suspect: Suspect,
    failure: Failure,
    tests: TestFiles,
    run: RunResult | None,
    overlay: dict[str, str],
    max_nodes: int,
) -> list[Suspect]:
    """The target, then the suspects of its module among the failure's top `max_nodes` in rank
    (the target's own nested defs are part of it already); `tests`: the heal's test files."""
    if max_nodes <= 1:
        return [suspect]
    try:
        ranked = locate(failure, tests.root, run, overlay=overlay, tests=tests).suspects
    except Exception:  # ranking is advice: without it, the target alone is offered
        return [suspect]
    inside = suspect.qualname + ".<locals>."
    top = [s for s in ranked if not s.qualname.startswith(inside)][:max_nodes]
    close = [
        s
        for s in top
        if s.path == suspect.path and s.qualname != suspect.qualname and s.path not in tests
    ]
    return [suspect, *close[: max_nodes - 1]]


def warm_runner_for(config: HealConfig, root: str) -> WarmRunner | None:
    """The workspace's warm runner, or None (cold runs) when off or unavailable."""
    if not config.warm:
        return None
    try:
        return get_warm_runner(config.python or _default_python(), root)
    except Exception:  # the warm runner is an optimisation: fall back to cold runs
        return None


def _default_python() -> str:
    return sys.executable


async def _search(ctx: HealContext) -> HealResult:
    for step in (cached_fix, local_search, model_rounds):
        result = await step(ctx)
        if result is not None:
            return result
    proposer_name = provider_for(ctx.config)
    tested = ctx.best or ctx.best_plan
    reason = "no candidate passed the tests" if tested else "no usable candidate was proposed"
    status: HealStatus = "unverified" if tested else "failed"
    return finish(ctx, status, reason=f"{reason} ({proposer_name}){_refused(ctx)}")


def _refused(ctx: HealContext) -> str:
    """Why the model's last answer was refused, when it was: the editor's message and the
    progress say only this reason, which the (throttled) attempt events may not have shown."""
    refused = [
        a for a in ctx.attempts if a.outcome == "rejected" and a.candidate.proposer != "local"
    ]
    if not refused or ctx.attempts[-1] is not refused[-1]:
        return ""
    why = refused[-1].failure
    return f"; refused: {why[:MAX_REFUSAL]}" + ("..." * (len(why) > MAX_REFUSAL))


def short_names(qualnames: list[str]) -> dict[str, str]:
    """Each qualname by its last part, or whole where that part is another's too (two classes'
    `__contains__`: "no passing test runs __contains__(); 5 run __contains__()" said nothing)."""
    last = [q.split(".")[-1] for q in qualnames]
    return {q: part if last.count(part) == 1 else q for q, part in zip(qualnames, last)}


def guard_line(ctx: HealContext) -> str:
    names = short_names([ctx.suspect.qualname, *(s.qualname for s in ctx.offered[1:])])
    count, name = len(ctx.guards.tests), names[ctx.suspect.qualname]
    # a class heal adds a member: its guards are the tests that ran any method of the class
    runs = f"a method of {name}" if ctx.suspect.member else f"{name}()"
    line = f"{count} passing test(s) run {runs}" if count else f"no passing test runs {runs}"
    for other in ctx.offered[1:]:
        line += f"; {len(ctx.guards.of.get(other.qualname, []))} run {names[other.qualname]}()"
    if ctx.guards.limit:
        line += (
            f"; guard discovery stopped at its {ctx.guards.limit:g} s limit: the tests it did not"
            " reach are not guards"
        )
    if ctx.guards.already_failing:
        line += f"; {len(ctx.guards.already_failing)} already failing (not held against a fix)"
    chosen, _ = guards_of(ctx, None)
    if chosen.cut:
        line += (
            f"; candidates run the nearest {len(chosen.run)} within the {chosen.budget:g} s"
            f" budget, the other {len(chosen.cut)} run after the apply"
        )
    if ctx.test_timeout and ctx.test_timeout != ctx.config.test_timeout:
        line += (
            f"; candidates get {round(ctx.test_timeout, 1):g} s per test"
            f" (these tests took at most {ctx.original_seconds:.2g} s on the original)"
        )
    return line
