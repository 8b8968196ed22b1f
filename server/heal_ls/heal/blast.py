"""Blast radius of a heal: how many places call the function, how many tests guard it.

Call sites are static: every `name(...)` and `<anything>.name(...)` in the workspace's Python
files whose called name is the function's own (so `getattr` tricks and callbacks are not
counted, and a common method name counts every class's). Each file's called names are cached
by its size and modification time, so only changed files are parsed again. Guards are the
passing tests of a traced run that executed the function (coverage keys "path:first_line"),
and those the project's impact map holds fresh for it.
"""

from __future__ import annotations

import ast
import os
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from heal_ls.impact.store import Function, ImpactMap
from heal_ls.models import RunResult, Suspect
from heal_ls.pysource.paths import FOREIGN_DIRS

_CALLED: dict[str, tuple[tuple[int, int], Counter[str]]] = {}  # path -> (signature, called names)


@dataclass
class Blast:
    callers: int
    guards: int | None  # None: not known yet (no run so far showed a passing test running it)

    def text(self) -> str:
        # static call sites, tests included: not distinct callers
        sites = f"{self.callers} call site{'s' * (self.callers != 1)}"
        if self.guards is None:
            return sites
        return f"{sites}, {self.guards} guard test{'s' * (self.guards != 1)}"


def python_files(root: str) -> Iterator[str]:
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in FOREIGN_DIRS and not d.startswith((".", "__"))]
        for name in names:
            if name.endswith(".py"):
                yield os.path.join(folder, name)


def called_names(path: str) -> Counter[str]:
    try:
        stat = os.stat(path)
    except OSError:
        return Counter()
    signature = (stat.st_mtime_ns, stat.st_size)
    cached = _CALLED.get(path)
    if cached is not None and cached[0] == signature:
        return cached[1]
    counts: Counter[str] = Counter()
    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        tree = None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                counts[func.id] += 1
            elif isinstance(func, ast.Attribute):
                counts[func.attr] += 1
    _CALLED[path] = (signature, counts)
    return counts


def call_sites(root: str, qualname: str) -> int:
    """Static call sites of the function named by `qualname` (its last part) under `root`."""
    name = qualname.rsplit(".", 1)[-1]
    return sum(called_names(path)[name] for path in python_files(root))


def guard_count(runs: Iterable[RunResult | None], suspect: Suspect) -> int:
    """Passing tests, in any of `runs` (RunResults, None skipped), that ran `suspect`."""
    return len(_guards_in(runs, suspect))


def _guards_in(runs: Iterable[RunResult | None], suspect: Suspect) -> set[str]:
    keys = {f"{suspect.path}:{suspect.start_line}", f"{suspect.path}:{suspect.def_line}"}
    guards = set()
    for run in runs:
        for test in run.tests if run is not None else ():
            if test.outcome == "passed" and keys.intersection(test.covered):
                guards.add(test.nodeid)
    return guards


def mapped_guards(root: str, suspect: Suspect, python: str | None) -> set[str]:
    """Fresh passing tests the project's impact map says ran `suspect` (none without a map)."""
    if not ImpactMap.exists(root, python):
        return set()
    try:
        with ImpactMap.open(root, python) as impact:
            impact.sync()
            function = Function.at(root, suspect.path, suspect.qualname)
            return {test.nodeid for test in impact.tests_running(function)}
    except (sqlite3.Error, OSError):
        return set()


def blast_radius(
    root: str, suspect: Suspect, runs: Iterable[RunResult | None], python: str | None = None
) -> Blast:
    """Call sites, and the guards the given runs and the impact map saw. None of them is no
    evidence of none: a followed run of the failing tests alone, or a `-k` run, never ran the
    passing ones, so 0 would read as "this fix will be weak" before the heal's own guard
    discovery has looked. `python`: the project's interpreter (whose map is read)."""
    guards = _guards_in(runs, suspect) | mapped_guards(root, suspect, python)
    return Blast(call_sites(root, suspect.qualname), len(guards) or None)
