"""Every run heal-ls makes on the ORIGINAL code goes into the impact map, from one place.

testing/runner.run_pytest calls `start_recording` after each run that had no overlay and no sandbox
(candidates are other code, never recorded): `heal-ls check`, the editor's runs (on save, the
re-run of the user's own failures when pytest's lastfailed changes, run-all), the traced coverage
run around suspects and `heal-ls index`. The test files a run took whole (a file, a folder, the
whole suite, with no option that selects fewer tests) become known sets in the map.

A map that cannot be written costs only a re-run later: errors are logged, never raised.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
from collections.abc import Sequence

from heal_ls.impact.store import ImpactMap
from heal_ls.impact.where import selects
from heal_ls.models import RunResult
from heal_ls.pysource.paths import test_files

log = logging.getLogger(__name__)


def start_recording(
    root: str,
    python: str | None,
    nodeids: Sequence[str] | None,
    pytest_args: Sequence[str],
    run: RunResult,
    *,
    traced: bool,
    started: float,
) -> asyncio.Future[None]:
    """Start recording `run` in a worker thread now, and return what ends when it is written:
    the caller may go on meanwhile (diagnose locates the failures while the map is written)."""
    loop = asyncio.get_running_loop()
    if run.error or not run.tests:
        nothing: asyncio.Future[None] = loop.create_future()
        nothing.set_result(None)
        return nothing
    complete = whole_files(root, nodeids) if traced and not selects(pytest_args) else []
    return loop.run_in_executor(None, _record, root, python, run, traced, complete, started)


def _record(root, python, run, traced, complete, started) -> None:
    try:
        with ImpactMap.open(root, python) as impact:
            impact.record(run, traced=traced, complete=complete, started=started)
    except (sqlite3.Error, OSError) as exc:
        log.warning("impact map of %s not written: %s", root, exc)


def whole_files(root: str, nodeids: Sequence[str] | None) -> list[str]:
    """The test files (relative) a run of `nodeids` takes whole (None: the whole suite)."""
    if not nodeids:
        return [rel for rel, _ in test_files(root)]
    found: list[str] = []
    for target in nodeids:
        if "::" not in target and os.path.exists(os.path.join(root, target)):
            found += [rel for rel, _ in test_files(root, target) if rel not in found]
    return found
