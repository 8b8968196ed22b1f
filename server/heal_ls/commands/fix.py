"""`heal-ls fix`: heal each failing test's top suspect; print verified diffs; --apply writes them."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from dataclasses import replace

from heal_ls.commands.apply import after_apply, has_uncommitted_changes, write_atomic
from heal_ls.commands.check import add_pytest_args, project_part
from heal_ls.commands.fix_report import failure_name, heal_progress_printer, print_report
from heal_ls.commands.live import Live, wanted
from heal_ls.diagnose import diagnose
from heal_ls.documents.fix import FixRow
from heal_ls.heal.after_apply import AfterApply
from heal_ls.heal.attempt import PASSED
from heal_ls.heal.blast import blast_radius
from heal_ls.heal.config import HealConfig
from heal_ls.heal.loop import heal_failure, offered_suspects, warm_runner_for
from heal_ls.heal.prompt import prompt_for, render_prompt
from heal_ls.heal.shared_cause import recheck, split_fixed
from heal_ls.heal.targets import HealTarget, group_targets, refresh_suspect, shared_first
from heal_ls.llm import PROVIDERS
from heal_ls.models import HealResult, HealStatus, OperatorCount
from heal_ls.pysource.paths import TestFiles
from heal_ls.pysource.source import read_source
from heal_ls.testing.flaky import Flaky, triage
from heal_ls.testing.prestart import interpreter

DEFAULTS = HealConfig()  # the CLI's defaults are the engine's


# ---- the command line ----------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path", nargs="?", default=".", help="the project, or a folder of it (default: .)"
    )
    parser.add_argument("--test", action="append", default=[], metavar="NODEID")
    parser.add_argument("--script", metavar="FILE", help="heal a crashing script instead of tests")
    add_pytest_args(parser)
    parser.add_argument(
        "--python", type=interpreter, metavar="PY", help="interpreter for test runs"
    )
    parser.add_argument("--provider", default=DEFAULTS.provider, choices=PROVIDERS)
    parser.add_argument("--model", help="model name (default: the provider's documented default)")
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint (Ollama, vLLM, ...)")
    parser.add_argument("--max-attempts", type=int, default=DEFAULTS.max_attempts, metavar="N")
    parser.add_argument("--candidates", type=int, default=DEFAULTS.candidates, metavar="K")
    parser.add_argument("--test-timeout", type=float, default=DEFAULTS.test_timeout, metavar="S")
    parser.add_argument(
        "--flaky-runs",
        type=int,
        default=DEFAULTS.flaky_runs,
        metavar="N",
        help="before a heal, re-run the failing test until it passes once, at most N times: a"
        f" pass means flaky, not healed (default {DEFAULTS.flaky_runs}, 0: no re-runs)",
    )
    _budget_arguments(parser)
    _output_arguments(parser)


def _budget_arguments(parser: argparse.ArgumentParser) -> None:
    """What one heal may spend and change: time, tokens, candidates, nodes, imports."""
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULTS.request_timeout,
        metavar="S",
        help=f"seconds per model call, retries included (default: {DEFAULTS.request_timeout:g})",
    )
    parser.add_argument(
        "--local-budget",
        type=int,
        default=DEFAULTS.local_budget_count,
        metavar="N",
        help="local candidates to try",
    )
    parser.add_argument(
        "--local-seconds",
        type=float,
        default=DEFAULTS.local_budget_seconds,
        metavar="S",
        help="local search time limit",
    )
    parser.add_argument(
        "--verify-seconds",
        type=float,
        default=DEFAULTS.verify_seconds,
        metavar="S",
        help="measured guard time each candidate runs, nearest guards first; the rest run after"
        f" --apply (default {DEFAULTS.verify_seconds:g}, 0: every guard)",
    )
    parser.add_argument(
        "--max-nodes",
        type=int,
        default=DEFAULTS.max_nodes,
        metavar="N",
        help=f"functions of the target's module a model's fix may change (default {DEFAULTS.max_nodes})",
    )
    parser.add_argument(
        "--no-imports", action="store_true", help="a model's fix may not add imports"
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=0,
        metavar="N",
        help="tokens one heal may spend (0: no cap)",
    )


def _output_arguments(parser: argparse.ArgumentParser) -> None:
    """What happens with the result: apply, show, cache, sandbox and output options."""
    parser.add_argument("--apply", action="store_true", help="write verified fixes")
    parser.add_argument(
        "--accept-weak",
        action="store_true",
        help="with --apply, also write weak fixes (no passing test guards the function)",
    )
    parser.add_argument(
        "--accept-review",
        action="store_true",
        help="with --apply, also write fixes that need review (they add what the allow-list does"
        " not vouch for: new modules, reflection, values from the failing test)",
    )
    parser.add_argument("--force", action="store_true", help="apply even over uncommitted changes")
    parser.add_argument(
        "--show-prompt", action="store_true", help="print the prompt; no model call"
    )
    parser.add_argument("--no-cache", action="store_true", help="ignore the repair cache")
    parser.add_argument(
        "--test-env",
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="pass a variable into the sandboxed test runs (repeatable)",
    )
    parser.add_argument(
        "--allow-unisolated",
        action="store_true",
        help="verify candidates even where no sandbox works (every result says so)",
    )
    parser.add_argument("--allow-test-edits", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def accepts(args: argparse.Namespace, status: str) -> bool:
    """Is a fix of this status written (with --apply)? Verified ones always; the others only
    on the user's explicit yes."""
    return {"verified": True, "weak": args.accept_weak, "review": args.accept_review}[status]


# ---- the command ---------------------------------------------------------------------------


def config_from(args: argparse.Namespace) -> HealConfig:
    if args.max_attempts < 1 or args.candidates < 1 or args.max_nodes < 1:
        raise SystemExit(
            "heal-ls fix: --max-attempts, --candidates and --max-nodes must be at least 1"
        )
    if args.timeout <= 0 or args.test_timeout <= 0:
        raise SystemExit("heal-ls fix: timeouts must be positive")
    if args.flaky_runs < 0:
        raise SystemExit("heal-ls fix: --flaky-runs must be 0 or more")
    return HealConfig.from_flags(args)


def run(args: argparse.Namespace) -> int:
    folder = os.path.abspath(args.path)
    if not os.path.isdir(folder):
        print(f"heal-ls fix: not a directory: {args.path}", file=sys.stderr)
        return 2
    root, part = project_part(folder)  # `fix tests`: the project's tests/, as check
    if part is not None and not (args.test or args.script):
        args.test = [part]
    try:
        config = config_from(args)
    except SystemExit as exc:
        print(exc, file=sys.stderr)
        return 2

    with Live(wanted(args.json), "fix", stop_after=args.test_timeout) as live:
        return asyncio.run(_fix(root, args, config, live))


async def _fix(root: str, args: argparse.Namespace, config: HealConfig, live) -> int:
    run_result, located = await diagnose(
        root,
        config.run_options(),
        tests=args.test or None,
        script=args.script,
        on_row=live.on_row,
    )
    problem = run_result.error or run_result.interrupted
    if problem:
        print(f"heal-ls fix: {problem}", file=sys.stderr)
        return 2
    targets = shared_first(group_targets(located), located)
    if args.show_prompt:
        return _show_prompts(root, targets, run_result, config.max_nodes)
    rows: list[FixRow] = []
    updated: dict[str, str] = {}
    remaining = list(targets)
    while remaining:
        target = remaining.pop(0)
        result = await _heal_target(root, target, run_result, config, updated, args.json, live)
        applied, fixed_along, after = False, [], None
        new_source = result.new_source if result.status in PASSED else None
        if new_source is not None and result.suspect:
            accepted = accepts(args, result.status)
            candidate = {**updated, result.suspect.path: new_source}
            if accepted:
                updated = candidate
                if args.apply:
                    applied = _apply(result, force=args.force)
                    after = await after_apply(root, result, config, live) if applied else None
            # a weak fix not applied is a cause all the same: its group is not healed either
            fixed_along = await _fixed_along(
                root, result, remaining, candidate, config, run_result, grouped=not accepted
            )
        row = _row(root, target, result, applied, run_result)
        rows += [replace(row, after_apply=after), *fixed_along]
    live.__exit__()  # the bar goes before the report
    print_report(rows, as_json=args.json, applying=args.apply, local=config.provider == "local")
    if not targets:
        return 0
    healed = all(
        r.status == "fixed" or (r.status == "verified" and (r.applied or not args.apply))
        for r in rows
    ) and not any(isinstance(r.after_apply, AfterApply) and r.after_apply.broken for r in rows)
    return 0 if healed else 1  # --apply that wrote nothing is not a success


async def _fixed_along(
    root, result: HealResult, remaining, updated, config, run, grouped=False
) -> list[FixRow]:
    """Rows for the remaining targets whose tests the fix already made pass (a shared cause);
    `remaining` keeps only what still fails. grouped: the fix is weak and not applied, so they
    are `grouped` under it (would be fixed by it), never healed on their own."""
    assert result.suspect is not None, "a verified result names its function"
    warm = warm_runner_for(config, root)
    options = config.run_options(overlay=updated, warm=warm, sandbox=config.sandbox)
    passing = await recheck(root, remaining, options)
    rows, still = [], []
    by = f"{os.path.relpath(result.suspect.path, root).replace(os.sep, '/')}::"
    by += result.suspect.qualname
    for target in remaining:
        fixed, failing = split_fixed(target, passing)
        if fixed:
            done = HealTarget(failures=fixed, suspect=target.suspect)
            reason = f"fixed by {result.suspect.qualname}: its tests pass now"
            if grouped:
                reason = f"would be fixed by {by}'s weak fix (not applied): its tests pass on it"
            status: HealStatus = "grouped" if grouped else "fixed"
            rows.append(
                replace(
                    _row(root, done, HealResult(status, reason=reason), False, run), fixed_by=by
                )
            )
        if failing:
            still.append(HealTarget(failures=failing, suspect=target.suspect, reason=target.reason))
    remaining[:] = still
    return rows


async def _triage(root, failure, run_result, config) -> Flaky | None:
    """A failing test that passes on a re-run is flaky, not a bug to heal (testing/flaky.py)."""
    seconds = next((t.duration for t in run_result.tests if t.nodeid == failure.test), 0.0)
    options = config.run_options(warm=warm_runner_for(config, root))
    return await triage(root, failure, seconds, options, most=config.flaky_runs)


async def _heal_target(
    root, target: HealTarget, run_result, config, updated, quiet, live
) -> HealResult:
    if target.suspect is None:
        return HealResult("skipped", reason=target.reason or "no function to heal")
    suspect = refresh_suspect(target.suspect, updated)
    flaky = await _triage(root, target.failures[0], run_result, config)
    if flaky is not None and flaky.passed:
        return HealResult("skipped", suspect=suspect, reason=f"{flaky.label()}: not healed")
    label = f"{os.path.relpath(suspect.path, root)}::{suspect.qualname}"
    emit = (lambda event: None) if quiet else heal_progress_printer(label, live)
    return await heal_failure(
        root,
        target.failures[0],
        config=config,
        run=run_result,
        suspect=suspect,
        overlay=dict(updated),
        on_event=emit,
        also_failing=target.failures[1:],
    )


def _apply(result: HealResult, *, force: bool) -> bool:
    assert result.suspect is not None and result.new_source is not None, "a verified result"
    path = result.suspect.path
    if not force and has_uncommitted_changes(path):
        result.reason = f"not applied: {path} has uncommitted changes (use --force)"
        return False
    write_atomic(path, result.new_source)
    return True


def _row(root: str, target: HealTarget, result: HealResult, applied: bool, run) -> FixRow:
    suspect = result.suspect or target.suspect
    blast = blast_radius(root, suspect, [run]) if suspect else None
    return FixRow(
        test=failure_name(target.failures[0]),
        tests=[failure_name(f) for f in target.failures],
        suspect=(
            f"{os.path.relpath(suspect.path, root).replace(os.sep, '/')}::{suspect.qualname}"
            if suspect
            else None
        ),
        status=result.status,
        proof=result.proof,
        # passing tests that run the function: what the heal found, else the last run's count
        guards=len(result.guards) + len(result.guards_cut)
        if result.status != "skipped" or not blast
        else blast.guards,
        guard_tests=result.guards,
        guards_cut=result.guards_cut,
        candidate_timeout=result.candidate_timeout,
        attempts=len(result.attempts),
        operators=operator_counts(result),
        diff=result.diff,
        touched=result.touched,
        notes=result.notes,
        applied=applied,
        reason=result.reason,
        warning=result.warning,
        fixed_by=None,
        tokens=result.tokens,
        tokens_in=result.tokens_in,
        tokens_out=result.tokens_out,
        cost=None if result.cost is None else round(result.cost, 6),
        model=result.model,
        callers=blast.callers if blast else None,
        seconds=result.seconds,
    )


def operator_counts(result: HealResult) -> dict[str, OperatorCount]:
    """Per local-repairer transformation (`compare`, `name`, a pair `compare+name`): how many of
    its candidates ran, their verification seconds, and how many were verified."""
    counts: dict[str, OperatorCount] = {}
    for attempt in result.attempts:
        if attempt.candidate.kind:
            row = counts.setdefault(attempt.candidate.kind, OperatorCount())
            row.tried += 1
            row.seconds = round(row.seconds + attempt.seconds, 3)
            row.won += attempt.outcome == "verified"
    return counts


def _show_prompts(root: str, targets: list[HealTarget], run, max_nodes: int) -> int:
    for target in targets:
        if target.suspect is None:
            continue
        text = read_source(target.suspect.path)
        failure, also = target.failures[0], target.failures[1:]
        tests = TestFiles.of_run(root, run, failure, also)  # as heal_failure builds them
        offered = offered_suspects(target.suspect, failure, tests, run, {}, max_nodes)
        prompt = prompt_for(target.suspect, text, failure, tests, [], offered)
        print(render_prompt(prompt))
    return 0
