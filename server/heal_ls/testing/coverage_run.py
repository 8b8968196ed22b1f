"""The traced tests around some suspects, on the ORIGINAL code, from the impact map first.

Guards need it (which passing tests exercise the function a candidate changes?) and so does
localisation (a spectrum of passing vs failing tests). The tests chosen are every test in the
failing tests' modules plus every test file that imports a suspect's module. What the project's
impact map (heal_ls/impact) holds fresh for them is not run again: only test files whose test
set the map does not know run (whole), plus the known files' tests that ran a function edited
since (stale). Every run heal-ls makes on the saved code feeds the map, this one included, so
an edit costs only the tests of what it touched.

    run = await coverage_run(root, suspect_paths=[...], failing=[nodeids], options=RunOptions(...))
    run.covering("/abs/mod.py:12")   # passing tests that ran the function starting on line 12
"""

from __future__ import annotations

import ast
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from heal_ls.impact.store import ImpactMap
from heal_ls.models import RunResult, TestOutcome
from heal_ls.pysource.parse import imported_names
from heal_ls.pysource.paths import nodeid_file, test_files
from heal_ls.testing.options import RunOptions
from heal_ls.testing.runner import run_pytest


@dataclass
class CoverageRun:
    """Per-test outcomes (with covered functions and durations) of one traced run."""

    tests: list[TestOutcome] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # the test files that ran (relative to root)
    seconds: float = 0.0  # wall time of the run (0.0 when it came from the cache)
    cached: bool = False
    error: str | None = None  # the run could not run at all; `tests` is then empty
    ran: list[str] = field(default_factory=list)  # test files and ids run (the rest: the map's)
    limit: float = 0.0  # the run hit this time limit (s): tests it did not reach are unknown

    def passing(self) -> list[TestOutcome]:
        return [t for t in self.tests if t.outcome == "passed"]

    def covering(self, *keys: str) -> list[TestOutcome]:
        """Passing tests that ran a function given as "abs_path:first_line" (any of `keys`)."""
        wanted = set(keys)
        return [t for t in self.passing() if wanted.intersection(t.covered)]

    def not_passing(self) -> list[TestOutcome]:
        """Tests that did not pass on the original: reported, never held against a candidate."""
        return [t for t in self.tests if t.outcome != "passed"]


async def coverage_run(
    root: str,
    *,
    suspect_paths: Sequence[str] = (),
    failing: Sequence[str] = (),
    exclude: Sequence[str] | None = None,
    options: RunOptions | None = None,
) -> CoverageRun:
    """Run (or recall from the impact map) the tests around `suspect_paths` and the `failing`
    node ids' modules.

    `exclude` node ids are deselected (default: the failing ones themselves, so a hanging
    failure does not cost a timeout here; their coverage is in the run that found them).
    With unsaved texts (`options.overlay`) the map, which knows the saved code, is not used.
    """
    root = os.path.abspath(root)
    options = options or RunOptions()
    files = select_test_files(root, suspect_paths, failing)
    if not files:
        return CoverageRun()
    exclude = list(failing if exclude is None else exclude)
    if options.overlay:
        started = time.monotonic()
        run = await _traced(root, files, exclude, options)
        cut = _limit(options) if run.timed_out else 0.0
        return CoverageRun(run.tests, files, _since(started), False, run.error, files, cut)
    return await _from_map(root, files, exclude, options)


async def _from_map(
    root: str, files: list[str], exclude: list[str], options: RunOptions
) -> CoverageRun:
    started = time.monotonic()
    with ImpactMap.open(root, options.python) as impact:
        impact.sync()
        known = impact.known(files)
        todo = [f for f in files if f not in known]
        todo += [n for n in impact.stale(known) if n not in exclude]
    if not todo:
        return CoverageRun(_recalled(root, files, exclude, options), files, 0.0, True)
    run = await _traced(root, todo, exclude, options)
    if run.error and any("::" in n for n in todo):  # a stale id pytest no longer finds
        todo = sorted({nodeid_file(n) for n in todo})
        run = await _traced(root, todo, exclude, options)
    cut = _limit(options) if run.timed_out else 0.0
    if run.error:
        return CoverageRun(run.tests, files, _since(started), False, run.error, todo, cut)
    fresh = [t.nodeid for t in run.tests]
    recalled = _recalled(root, files, [*exclude, *fresh], options)
    return CoverageRun([*run.tests, *recalled], files, _since(started), False, None, todo, cut)


def _recalled(
    root: str, files: list[str], exclude: list[str], options: RunOptions
) -> list[TestOutcome]:
    """The map's fresh tests of `files`, as a traced run would report them."""
    left_out = set(exclude)
    with ImpactMap.open(root, options.python) as impact:
        return [t for t in impact.outcomes(files) if t.nodeid not in left_out]


async def _traced(
    root: str, nodeids: list[str], exclude: list[str], options: RunOptions
) -> RunResult:
    """One traced run of `nodeids` with `exclude` deselected exactly."""
    traced = replace(options.excluding(exclude), run_timeout=_limit(options), trace=True)
    return await run_pytest(root, traced, nodeids=nodeids)


def _limit(options: RunOptions) -> float:
    """The traced run's time limit: what it did not reach by then stays unknown (the map
    keeps what it did, so the next run goes on from there)."""
    return max(60.0, options.test_timeout * 10)


def _since(started: float) -> float:
    return round(time.monotonic() - started, 3)


def select_test_files(root: str, suspect_paths: Sequence[str], failing: Sequence[str]) -> list[str]:
    """Test files (relative, `/`-separated) holding a failing test or importing a suspect."""
    chosen = {nodeid_file(nodeid) for nodeid in failing if "::" in nodeid}
    wanted = [_module_parts(root, p) for p in suspect_paths]
    wanted = [parts for parts in wanted if parts]
    if wanted:
        for rel, path in test_files(root):
            if rel not in chosen and _imports_any(path, wanted):
                chosen.add(rel)
    return sorted(c for c in chosen if os.path.isfile(os.path.join(root, c)))


def _module_parts(root: str, path: str) -> tuple[str, ...]:
    rel = os.path.relpath(os.path.abspath(path), root)
    if rel.startswith("..") or not rel.endswith(".py"):
        return ()
    parts = tuple(rel[:-3].split(os.sep))
    return parts[:-1] if parts[-1] == "__init__" else parts


def _imports_any(path: str, wanted: list[tuple[str, ...]]) -> bool:
    """Does the file import one of the modules? `import a.b`, `from a import b`, `from a.b
    import x` and `import b` (a src/ or sys.path layout) all count: a dotted name matches when it
    is a suffix of the module's path parts."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return False
    for name in imported_names(ast.walk(tree)):
        dotted = tuple(name.split("."))
        if any(len(dotted) <= len(w) and w[len(w) - len(dotted) :] == dotted for w in wanted):
            return True
    return False
