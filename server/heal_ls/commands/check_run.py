"""`heal-ls check` once its first run is spawned (commands/check.py): wait for the run, locate
each failure, re-check flaky ones, print the report. Imported while the tests run."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from dataclasses import replace

from heal_ls.commands.check_report import human_lines, summary_line, to_json
from heal_ls.commands.live import Live, wanted
from heal_ls.diagnose import diagnose, diagnose_report
from heal_ls.testing.ci_report import ReportError
from heal_ls.testing.flaky import recheck, worth_rechecking
from heal_ls.testing.head_start import HeadStart
from heal_ls.testing.options import RunOptions
from heal_ls.testing.tox_nox import not_applied

Target = tuple[str, list[str] | None, str | None]  # (root, tests, script)


def finish(
    args: argparse.Namespace,
    target: Target,
    options: RunOptions,
    head: HeadStart | None,
    vouched: Sequence[str] = (),
) -> int:
    """The exit code of `check` on `target`, run with `options` (the user's own run's), its
    first run `head` when one was spawned, without the tests the impact map `vouched` for."""
    root, tests, script = target
    with Live(wanted(args.json), stop_after=args.test_timeout) as live:
        try:
            result, located = _diagnosed(target, args, options, head, live, vouched)
        except ReportError as exc:
            print(f"heal-ls check: {exc}", file=sys.stderr)
            return 2
        # a re-check is no run of the user's: it leaves their lastfailed alone
        again = replace(options, user_cache=False)
        flaky = (
            asyncio.run(recheck_all(root, located, args.flaky_runs, again, live))
            if args.flaky_runs
            else None
        )
    if result.error:
        print(f"heal-ls check: {result.error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(to_json(result, located, root, flaky), indent=2))
    else:
        for line in human_lines(result, located, root, traceback=not args.short, flaky=flaky):
            print(line)
        print(summary_line(result), file=sys.stderr)
    if result.interrupted:  # like pytest: an interrupted session is exit 2, never a pass
        print(f"heal-ls check: {result.interrupted}", file=sys.stderr)
        return 2
    if not (result.failures or result.timed_out):
        return 0
    if not script:  # what tox or nox would have set up: a failure may come from its absence
        for note in not_applied(root):
            print(f"heal-ls check: note: {note}", file=sys.stderr)
    return 1


def _diagnosed(
    target: Target,
    args: argparse.Namespace,
    options: RunOptions,
    head: HeadStart | None,
    live: Live,
    vouched: Sequence[str],
):
    """The run (or the JUnit report of --from) and its located failures."""
    root, tests, script = target
    if args.from_report:
        return diagnose_report(root, args.from_report, args.python)
    run = diagnose(
        root,
        options,
        tests=tests,
        script=script,
        on_row=live.on_row,
        started=head,
        vouched=vouched,
    )
    return asyncio.run(run)


async def recheck_all(root: str, located, runs: int, options: RunOptions, live) -> dict:
    """--flaky-runs N: each failing test's re-check counts, by failure id."""
    found = {}
    for failure, _ in located:
        if worth_rechecking(failure):
            live.step(f"re-checking {failure.test}")
            found[failure.id] = await recheck(root, failure.test, runs, options)
    return found
