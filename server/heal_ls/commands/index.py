"""`heal-ls index [PATH]`: fill the project's impact map up front (for CI, or before a session).

Runs, traced, every test the map does not know fresh (testing/fill_map.py), with pytest-xdist
(`-n auto`) when the project's interpreter has it, and a short per-test timeout so no hanging
or network test stalls it. Prints what ran, the map's size (rows, MB on disk) and peak memory.
The tests' own failures are not the command's: it exits 0 once the map is written.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import sys
from dataclasses import dataclass

from heal_ls.commands.check import add_pytest_args, options_from, project_root
from heal_ls.commands.live import Live, wanted
from heal_ls.payload import to_json
from heal_ls.testing.fill_map import (
    FILL_RUN_TIMEOUT,
    FILL_TEST_TIMEOUT,
    Filled,
    fill_map,
    has_xdist,
)
from heal_ls.testing.prestart import interpreter

NO_XDIST = "pytest-xdist is not installed in {python}: running serially (pip install pytest-xdist)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", default=".", help="project, test folder or file")
    parser.add_argument(
        "--python", type=interpreter, metavar="PY", help="interpreter (default: this one)"
    )
    parser.add_argument(
        "--test-timeout",
        type=float,
        default=FILL_TEST_TIMEOUT,
        metavar="S",
        help=f"seconds per test; a slower test is recorded as timed out (default {FILL_TEST_TIMEOUT:g})",
    )
    parser.add_argument("--run-timeout", type=float, default=FILL_RUN_TIMEOUT, metavar="S")
    parser.add_argument(
        "--workers", default="auto", metavar="N", help="pytest-xdist's -n (default auto; 0: serial)"
    )
    parser.add_argument("--full", action="store_true", help="run every test, fresh or not")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    add_pytest_args(parser)


def run(args: argparse.Namespace) -> int:
    path = os.path.abspath(args.path)
    if not os.path.exists(path):
        print(f"heal-ls index: no such file or folder: {args.path}", file=sys.stderr)
        return 2
    if args.python and not shutil.which(args.python):
        print(f"heal-ls index: not an executable interpreter: {args.python}", file=sys.stderr)
        return 2
    root = project_root(path if os.path.isdir(path) else os.path.dirname(path))
    target = os.path.relpath(path, root).replace(os.sep, "/")
    workers = None if args.workers == "0" else args.workers
    if workers is not None and not has_xdist(args.python):
        note = NO_XDIST.format(python=args.python or sys.executable)
        print(f"heal-ls index: note: {note}", file=sys.stderr)
        workers = None
    options = options_from(args)
    with Live(wanted(args.json), title="index", stop_after=args.test_timeout) as live:
        filled = asyncio.run(
            fill_map(
                root,
                target=None if target == "." else target,
                options=options,
                workers=workers,
                full=args.full,
                on_row=live.rows(),
            )
        )
    if filled.run is not None and filled.run.error:
        print(f"heal-ls index: {filled.run.error}", file=sys.stderr)
        return 2
    report = summary(filled, args.test_timeout)
    if args.json:
        print(json.dumps(to_json(report), indent=2))
    else:
        for line in lines(report):
            print(line)
    return 0


@dataclass
class TestCounts:
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0


@dataclass
class MapSize:
    rows: int
    functions: int
    tests: int
    megabytes: float  # on disk, rounded to 2 places


@dataclass
class PeakMemory:
    """Peak resident memory (MB) of heal-ls itself and of its largest test process."""

    heal_ls: float
    tests: float


@dataclass
class IndexReport:
    """`heal-ls index`: what ran and what the impact map holds now (its --json document)."""

    ran: str | int  # "all", or how many tests the map lacked
    tests: TestCounts
    timed_out: int
    test_timeout: float
    workers: str | None
    seconds: float
    map: MapSize
    peak_memory_mb: PeakMemory


def summary(filled: Filled, test_timeout: float) -> IndexReport:
    run, stats = filled.run, filled.stats
    counts = TestCounts()
    if run is not None:
        counts = TestCounts(run.passed, run.failed, run.errors, run.skipped)
    return IndexReport(
        ran="all" if filled.todo is None else len(filled.todo),
        tests=counts,
        timed_out=len(filled.timed_out()),
        test_timeout=test_timeout,
        workers=filled.workers,
        seconds=filled.seconds,
        map=MapSize(stats.rows, stats.functions, stats.tests, round(stats.megabytes, 2)),
        peak_memory_mb=peak_memory(),
    )


def peak_memory() -> PeakMemory:
    """Peak resident memory (MB) of heal-ls itself and of its largest test process."""
    unit = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, else KiB
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * unit
    tests = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * unit
    return PeakMemory(heal_ls=round(own / 1e6, 1), tests=round(tests / 1e6, 1))


def lines(report: IndexReport) -> list[str]:
    tests, size, memory = report.tests, report.map, report.peak_memory_mb
    if report.ran == 0:
        head = "heal-ls index: the map is up to date (nothing ran)"
    else:
        engine = f"pytest-xdist -n {report.workers}" if report.workers else "serial"
        total = tests.passed + tests.failed + tests.errors + tests.skipped
        head = (
            f"heal-ls index: {total} tests ran ({tests.passed} passed, {tests.failed} "
            f"failed, {tests.errors} errors, {tests.skipped} skipped; "
            f"{report.timed_out} timed out after {report.test_timeout:g} s) "
            f"in {report.seconds:.1f} s, {engine}"
        )
    return [
        head,
        f"impact map: {size.rows:,} rows, {size.functions:,} functions, "
        f"{size.tests:,} tests, {size.megabytes:.1f} MB on disk",
        f"peak memory: heal-ls {memory.heal_ls:.0f} MB, largest test process {memory.tests:.0f} MB",
    ]
