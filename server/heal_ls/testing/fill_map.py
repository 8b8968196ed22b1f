"""Fill a project's impact map: run, traced, every test the map does not know fresh.

The engine is pytest-xdist when the project's interpreter has it (`-n auto`, or the workers
asked for): its workers run the tests and the heal-ls plugin relays their rows. Without it the
run is serial. A short per-test timeout (5 s by default, far below a focused run's) ends any test
that hangs or waits on the network; it is recorded as timed out and never counts as a guard.
The run itself feeds the map (testing/runner.run_pytest records every run of the saved code).

A first fill runs the whole suite (or the folder given) as pytest would collect it; later fills
run only the test files whose tests changed and the tests that ran an edited function.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from heal_ls.impact.store import ImpactMap, MapStats
from heal_ls.models import RunResult
from heal_ls.pysource.paths import test_files
from heal_ls.testing.options import RunOptions
from heal_ls.testing.report import ReportRow
from heal_ls.testing.runner import run_pytest

FILL_TEST_TIMEOUT = 5.0  # seconds per test while filling (a focused run's default is 10)
FILL_RUN_TIMEOUT = 6 * 3600.0


@dataclass
class Filled:
    run: RunResult | None  # None: the map already knew everything fresh
    todo: list[str] | None  # the test files and ids that ran (None: all under the target)
    workers: str | None  # the `-n` given to pytest-xdist, None when serial
    seconds: float
    stats: MapStats

    def timed_out(self) -> list[str]:
        if self.run is None:
            return []
        return [f.test for f in self.run.failures if f.timed_out and f.test]


def has_xdist(python: str | None) -> bool:
    """Can the project's interpreter import pytest-xdist?"""
    try:
        done = subprocess.run(
            [python or sys.executable, "-c", "import xdist"],
            capture_output=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def to_run(root: str, target: str | None, full: bool, python: str | None) -> list[str] | None:
    """What a fill runs: None for everything under `target` (pytest collects as it would),
    else the unknown test files and stale test ids ([] when all is fresh)."""
    files = [rel for rel, _ in test_files(root, target)]
    with ImpactMap.open(root, python) as impact:
        impact.sync()
        known = [] if full else impact.known(files)
        if not known:
            return None
        todo = [f for f in files if f not in known]
        return todo + impact.stale(known)


async def fill_map(
    root: str,
    *,
    target: str | None = None,
    options: RunOptions | None = None,
    workers: str | None = "auto",
    full: bool = False,
    on_row: Callable[[ReportRow], None] | None = None,
) -> Filled:
    """Run what the map lacks under `target` (a folder or file relative to `root`; None: all).
    workers: pytest-xdist's `-n` (None or "0": serial)."""
    root = os.path.abspath(root)
    options = options or RunOptions(test_timeout=FILL_TEST_TIMEOUT, run_timeout=FILL_RUN_TIMEOUT)
    started = time.monotonic()
    todo = to_run(root, target, full, options.python)
    run = None
    if todo != []:
        nodeids = todo if todo is not None else ([target] if target else None)
        spread = workers not in (None, "0")
        args = (*options.pytest_args, "-n", str(workers)) if spread else options.pytest_args
        filling = replace(
            options, pytest_args=args, overlay=None, warm=None, trace=True, spread=True
        )
        run = await run_pytest(root, filling, nodeids=nodeids, on_row=on_row)
    with ImpactMap.open(root, options.python) as impact:
        stats = impact.stats()
    used = workers if workers not in (None, "0") else None
    return Filled(run, todo, used, round(time.monotonic() - started, 3), stats)
