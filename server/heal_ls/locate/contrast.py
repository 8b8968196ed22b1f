"""A contrast for the spectrum when the run has none: passing tests known to run the suspects.

`heal-ls check --test X` runs X's file (testing/focus.py), so the file's other passing tests
are its first contrast. When none of them ran the functions the failing tests ran, Ochiai cannot
tell the function the test calls from the callee that holds the bug; then the run borrows the
passing tests known from elsewhere, never a run of its own: the editor's last full run
(`with_passing`) and the impact map's fresh passing tests of those functions (`with_known`).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable

from heal_ls.impact.fingerprints import file_functions
from heal_ls.impact.store import Function, ImpactMap
from heal_ls.models import RunResult, TestOutcome
from heal_ls.pysource.paths import nodeid_file

logger = logging.getLogger(__name__)


def needs_contrast(run: RunResult) -> bool:
    """Failing tests ran workspace functions, but no passing test of the run ran any of them."""
    keys = failing_keys(run)
    if not keys:
        return False
    return not any(keys.intersection(t.covered) for t in run.tests if t.outcome == "passed")


def sets_apart(run: RunResult) -> bool:
    """Did the run's passing tests leave a function the failing tests ran unrun? A contrast
    that ran every one of them sets none apart: what it tells apart is blocks, by the inputs
    of other tests (a module of its own lends them: testing/siblings.py), and those rank above
    the calls on the failing line on that alone (html2text's `handle`, whose state a second
    call of it keeps: every test runs every block the failing one ran, a few more or less)."""
    passing = [t for t in run.tests if t.outcome == "passed"]
    ran = set().union(*(t.covered for t in passing))
    return bool(failing_keys(run) - ran)


def kept_contrast(run: RunResult, borrowed: RunResult) -> RunResult:
    """What of `borrowed` (`run` plus passing tests lent to it) the spectrum keeps: all of it
    when it sets a function the failing tests ran apart; otherwise only the tests of the
    failing tests' own files, the contrast a run of those files would have had (their blocks
    tell the branch only the failing test took: tinydb's `LRUCache.set`). Other modules'
    tests that ran every such function tell blocks apart by inputs of their own, and those
    outrank the calls on the failing line (html2text's `handle`): they are dropped, whether
    the siblings lent them just now or the impact map, which keeps their run, lends them
    again on a re-check."""
    if sets_apart(borrowed):
        return borrowed
    files = {nodeid_file(failure.test) for failure in run.failures if failure.test}
    own = [t for t in borrowed.tests if nodeid_file(t.nodeid) in files]
    return with_passing(run, own)


def failing_keys(run: RunResult) -> set[str]:
    """The functions ("abs_path:first_line") the run's failing tests ran."""
    return {key for failure in run.failures if failure.test for key in failure.covered}


def with_known(run: RunResult, root: str, python: str | None = None) -> RunResult:
    """`run` plus the passing tests the impact map knows ran its failing tests' functions
    (fresh rows only: a function edited since has lost its rows). Reads, never runs."""
    try:
        passing = known_passing(root, python, failing_keys(run))
    except Exception as exc:  # noqa: BLE001 - the map is advice: ranking goes on without it
        logger.info("impact map unreadable for contrast: %s", exc)
        return run
    return with_passing(run, passing)


def known_passing(root: str, python: str | None, keys: Iterable[str]) -> list[TestOutcome]:
    """The map's fresh passing tests of those functions, as their last traced run reported
    them: the functions they ran and the blocks of them, where the map kept those."""
    with ImpactMap.open(root, python) as impact:
        impact.sync()
        nodeids: set[str] = set()
        for key in sorted(keys):
            path, _, line = key.rpartition(":")
            functions = file_functions(path)
            qualname = functions.at_line(int(line)) if functions and line.isdigit() else None
            if qualname is not None:
                function = Function.at(root, path, qualname)
                nodeids.update(test.nodeid for test in impact.tests_running(function))
        return impact.passing(sorted(nodeids)) if nodeids else []


def with_passing(run: RunResult, passing: list[TestOutcome]) -> RunResult:
    """`run` plus those passing tests it did not run itself (for the spectrum only)."""
    known = {t.nodeid for t in run.tests}
    extra = [t for t in passing if t.outcome == "passed" and t.nodeid not in known]
    return dataclasses.replace(run, tests=[*run.tests, *extra]) if extra else run
