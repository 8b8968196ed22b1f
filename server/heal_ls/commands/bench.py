"""`heal-ls bench`: run each known bug's tests, heal it, and print how it went.

Per bug: was the buggy function the heal target (located), fixed (the whole test file passes
with the healed module), correct (also the bug's hidden tests, which the heal never saw, pass),
equal to the reference ("same" AST, "behaves" alike on random inputs,
"differs", or "?"), attempts, model calls, tokens and seconds; then totals, median and max.
Each bug runs in a throwaway copy, so the suite folders are never written to.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import runpy
import shutil
import sys
import tempfile
from pathlib import Path

from heal_ls import payload
from heal_ls.bench import localise
from heal_ls.bench.heal_case import heal_case
from heal_ls.bench.ranks import rank_lines
from heal_ls.bench.rows import BenchDocument, BenchRow, LocaliseDocument
from heal_ls.bench.sdist import FetchError
from heal_ls.bench.suites import BenchCase, SuiteError, load_suite
from heal_ls.bench.table import summary, table_lines, totals_line
from heal_ls.commands import bench_real
from heal_ls.commands.live import Live, wanted
from heal_ls.heal.config import HealConfig
from heal_ls.llm import PROVIDERS
from heal_ls.testing.options import RunOptions
from heal_ls.testing.prestart import interpreter
from heal_ls.testing.warm.client import shutdown_all


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--suite", default="examples", choices=["examples", "localise"])
    parser.add_argument(
        "--per-package",
        type=int,
        default=12,
        metavar="N",
        help="localise: injected bugs per real package (default: 12)",
    )
    parser.add_argument(
        "--timing-rounds",
        type=int,
        default=3,
        metavar="N",
        help="localise: rounds of check-vs-pytest timing per package (0: skip)",
    )
    parser.add_argument(
        "--provider",
        default="local",
        choices=PROVIDERS,
        help="who proposes fixes (default: local, so runs are repeatable and free)",
    )
    parser.add_argument("--model", help="model name for anthropic/openai")
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint")
    parser.add_argument("--only", nargs="+", metavar="NAME", default=[], help="just these bugs")
    parser.add_argument(
        "--python", type=interpreter, metavar="PY", help="interpreter for test runs"
    )
    parser.add_argument(
        "--test-timeout", type=float, default=3.0, metavar="S", help="per test (default: 3)"
    )
    parser.add_argument(
        "--budget-count",
        type=int,
        default=300,
        dest="local_budget",
        metavar="N",
        help="local candidates per bug",
    )
    parser.add_argument(
        "--budget-seconds",
        type=float,
        default=60.0,
        dest="local_seconds",
        metavar="S",
        help="local search per bug",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument(
        "--ranks", action="store_true", help="only show where each reference fix ranks (no runs)"
    )
    parser.add_argument(
        "--perf", action="store_true", help="run the speed benchmarks (benchmarks/perf.py)"
    )
    parser.add_argument("--perf-rounds", type=int, default=10, metavar="N", help=argparse.SUPPRESS)
    parser.add_argument("--perf-warm-only", action="store_true", help=argparse.SUPPRESS)
    bench_real.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    if args.perf:
        return _perf(args.perf_rounds, args.perf_warm_only)
    if args.real:
        return bench_real.run(args)
    if args.suite == "localise":
        return _localise(args)
    try:
        cases = load_suite(args.suite, only=args.only)
    except SuiteError as exc:
        print(f"heal-ls bench: {exc}", file=sys.stderr)
        return 2
    if args.ranks:
        print("\n".join(rank_lines(cases)))
        return 0
    if not args.json:  # rows are printed as they finish: a long run shows progress
        print(table_lines([], header=True)[0], flush=True)
    rows = asyncio.run(_bench(cases, args))
    totals = summary(rows)
    if args.json:
        print(json.dumps(payload.to_object(BenchDocument(rows, totals)), indent=2))
    else:
        print(totals_line(totals))
    wrong = totals.verified_wrong  # a "verified" fix that hidden tests refute
    return 0 if rows and all(r.fixed for r in rows) and not wrong else 1


def _localise(args: argparse.Namespace) -> int:
    say = (lambda line: print(line, file=sys.stderr, flush=True)) if args.json else print
    try:
        rows, timings = asyncio.run(
            localise.run_localise(
                per_package=args.per_package,
                only=args.only,
                options=localise_options(args),
                timing_rounds=args.timing_rounds,
                out=say,
            )
        )
    except FetchError as exc:
        print(f"heal-ls bench: {exc}", file=sys.stderr)
        return 2
    if args.json:
        document = LocaliseDocument(rows, timings, localise.summarise(rows))
        print(json.dumps(payload.to_object(document), indent=2))
    else:
        print("\n".join(localise.table(rows, timings)))
        print(localise.kinds_line(rows))
    return 0 if rows else 1


def localise_options(args: argparse.Namespace) -> RunOptions:
    """The localise suite's runs: as the flags say (the one mapping, HealConfig.from_flags),
    each test given 10 s at least (a loaded machine is not a hang), the suite 300 s."""
    config = HealConfig.from_flags(args)
    return config.run_options(test_timeout=max(config.test_timeout, 10.0), run_timeout=300)


def _perf(rounds: int, warm_only: bool) -> int:
    """The speed benchmarks live beside the sources (they need tests/helpers/fakemodel.py)."""
    script = Path(__file__).resolve().parents[3] / "benchmarks" / "perf.py"
    if not script.is_file():
        print("heal-ls bench --perf: needs a source checkout (benchmarks/perf.py)", file=sys.stderr)
        return 2
    sys.argv = [str(script), "--rounds", str(rounds)] + (["--only-warm"] if warm_only else [])
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


async def _bench(cases: list[BenchCase], args: argparse.Namespace) -> list[BenchRow]:
    # a benchmark measures the search, not the cache
    config = HealConfig.from_flags(args, use_cache=False)

    rows = []
    with (
        tempfile.TemporaryDirectory(prefix="heal-bench-") as scratch,
        Live(wanted(args.json), "bench") as live,
    ):
        copies: dict[str, str] = {}
        live.expect(len(cases))
        for index, case in enumerate(cases):
            live.step(f"healing {case.name}")
            workspace = _copy_root(case, scratch, copies)
            row = await heal_case(_moved(case, workspace), config)
            rows.append(row)
            live.advance()
            line = table_lines([row], header=False)[0]
            if live.progress is not None and sys.stdout.isatty():
                live.print(line)  # above the bar, on the same terminal
            else:
                print(line, file=sys.stderr if args.json else sys.stdout, flush=True)
            if index + 1 == len(cases) or cases[index + 1].root != case.root:
                await shutdown_all()  # one warm test server per project, not one per bug
    return rows


def _copy_root(case: BenchCase, scratch: str, copies: dict[str, str]) -> str:
    """One copy per suite root (cases that share a root share one copy)."""
    if case.root not in copies:
        dest = os.path.join(scratch, f"{len(copies)}-{os.path.basename(case.root)}")
        ignore = shutil.ignore_patterns(".git", "__pycache__", ".pytest_cache")
        shutil.copytree(case.root, dest, ignore=ignore)
        copies[case.root] = dest
    return copies[case.root]


def _moved(case: BenchCase, workspace: str) -> BenchCase:
    target = os.path.join(workspace, os.path.relpath(case.target, case.root))
    return dataclasses.replace(case, root=workspace, target=target)
