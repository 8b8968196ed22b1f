"""`heal-ls bench --suite localise`: does the buggy function come first on real projects?

Source distributions of a few real pure-Python packages (their own pytest and unittest suites,
fixtures, parametrize, src layouts) are downloaded once into .cache/localise/, pinned by version
and sha256. Known single-function bugs are injected (bench/mutants.py: comparisons, arithmetic,
booleans, constants, conditions, returns; in closures, private callees and public functions),
the package's suite runs as `heal-ls check` runs it, and for each failing test we record where
the injected function ranks among the suspects. Then `heal-ls check` is timed against plain
pytest on the unchanged projects, side by side.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from heal_ls import payload
from heal_ls.bench.mutants import Mutant, mutants_of
from heal_ls.bench.rows import LocaliseRow, LocaliseSummary, Timing
from heal_ls.bench.sdist import fetch_sdist
from heal_ls.diagnose import diagnose
from heal_ls.models import Suspect
from heal_ls.testing.invocation import pytest_arguments
from heal_ls.testing.options import RunOptions

CACHE = Path(__file__).resolve().parents[3] / ".cache" / "localise"
MAX_FAILURES_PER_BUG = 5  # one bug breaking 40 tests must not outweigh the others


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    sha256: str
    source: str  # the package's code folder inside the sdist
    pythonpath: str = "."  # where its modules import from (src layouts: "src")
    tests: str = ""  # the test folder or file to run ("" = pytest's default)

    @property
    def sdist(self) -> str:
        return f"{self.name}-{self.version}.tar.gz"


PACKAGES = [  # unittest suites, pytest functions, parametrize, src layout
    Package("cachetools", "5.3.3",
            "ba29e2dfa0b8b556606f097407ed1aa62080ee108ab0dc5ec9d6a723a007d105",
            "src/cachetools", "src", "tests"),
    Package("more-itertools", "10.2.0",
            "8fccb480c43d3e99a00087634c06dd02b0d50fbf088b380de5a41a015ec239e1",
            "more_itertools", ".", "tests"),
    Package("inflection", "0.5.1",
            "1a29730d366e996aaacffb2f1f1cb9593dc38e2ddd30c91250c6dde09ea9b417",
            "inflection", ".", "test_inflection.py"),
    Package("toolz", "0.12.1",
            "ecca342664893f177a13dac0e6b41cbd8ac25a358e5f215316d43e2100224f4d",
            "toolz", ".", "toolz/tests"),
]  # fmt: skip


def fetch(package: Package, cache: Path = CACHE) -> Path:
    """The unpacked sdist, downloaded with pip on first use and checked against its sha256."""
    return fetch_sdist(package.name, package.version, package.sha256, cache)


def candidate_mutants(package: Package, root: Path) -> list[Mutant]:
    """One mutation per function of the package's own code (not its tests), taking closures,
    private callees and public functions in turn so every kind of function is represented."""
    found: list[Mutant] = []
    for path in sorted((root / package.source).rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if "/tests/" in f"/{rel}" or path.name.startswith("test_"):
            continue
        found += mutants_of(rel, path.read_text(encoding="utf-8"))
    private = lambda m: m.qualname.rsplit(".", 1)[-1].startswith("_")  # noqa: E731
    groups = [
        [m for m in found if m.nested],
        [m for m in found if not m.nested and private(m)],
        [m for m in found if not m.nested and not private(m)],
    ]
    firsts = [_one_per_function(group) for group in groups]
    mixed = []
    for position in range(max(map(len, firsts), default=0)):
        mixed += [group[position] for group in firsts if position < len(group)]
    return mixed


def _one_per_function(mutants: list[Mutant]) -> list[Mutant]:
    chosen: dict[tuple[str, str], Mutant] = {}
    for mutant in mutants:
        chosen.setdefault((mutant.path, mutant.qualname), mutant)
    return list(chosen.values())


async def localise_bug(
    package: Package, root: Path, mutant: Mutant, options: RunOptions
) -> LocaliseRow | None:
    """Inject `mutant` into `root`, run the suite like `heal-ls check` (with `options`),
    restore the file, and return the target's rank in each failure's suspects (None: no test
    failed)."""
    target = root / mutant.path
    original = target.read_text(encoding="utf-8")
    target.write_text(mutant.apply(original), encoding="utf-8")
    try:
        started = time.monotonic()
        tests = [package.tests] if package.tests else None
        run, located = await diagnose(root, options, tests=tests)
        seconds = time.monotonic() - started
    finally:
        target.write_text(original, encoding="utf-8")
    failed = [(failure, where) for failure, where in located if failure.test]
    if run.error or not failed:
        return None
    failed.sort(key=lambda pair: pair[0].id)
    ranks = [rank_of(w.suspects, str(target), mutant.qualname) for _, w in failed][
        :MAX_FAILURES_PER_BUG
    ]
    return LocaliseRow(
        package=package.name, bug=mutant.name, kind=mutant.kind, nested=mutant.nested,
        failures=len(failed), ranks=ranks, seconds=round(seconds, 2),
    )  # fmt: skip


def rank_of(suspects: Sequence[Suspect], path: str, qualname: str) -> int | None:
    """1-based position of the function `qualname` of the file `path` among `suspects` (None:
    it is not one of them)."""
    for position, suspect in enumerate(suspects, 1):
        same = os.path.realpath(suspect.path) == os.path.realpath(path)
        if same and suspect.qualname == qualname:
            return position
    return None


def overhead(package: Package, root: Path, rounds: int = 3) -> Timing:
    """Plain pytest vs `heal-ls check` on the unchanged project, alternated, best of `rounds`:
    wall time, and CPU time of the whole process tree (steadier on a shared machine)."""
    env = {**os.environ, "PYTHONPATH": str(root / package.pythonpath)}
    target = [package.tests] if package.tests else []
    quiet = ["-q", "-p", "no:cacheprovider"]
    plain = [sys.executable, "-m", "pytest", *pytest_arguments(str(root), (), target, extra=quiet)]
    check = [sys.executable, "-m", "heal_ls", "check", "--short", str(root)]
    check += ["--test", package.tests] if package.tests else []
    wall: dict[str, list[float]] = {"pytest": [], "check": []}
    cpu: dict[str, list[float]] = {"pytest": [], "check": []}
    for _ in range(rounds):
        for label, cmd in (("pytest", plain), ("check", check)):
            before, started = _children_cpu(), time.monotonic()
            subprocess.run(cmd, cwd=root, env=env, capture_output=True, check=False)
            wall[label].append(time.monotonic() - started)
            cpu[label].append(_children_cpu() - before)
    best = {label: min(values) for label, values in wall.items()}
    best_cpu = {label: min(values) for label, values in cpu.items()}
    return Timing(
        package=package.name, pytest=round(best["pytest"], 2), check=round(best["check"], 2),
        ratio=best["check"] / best["pytest"], cpu_ratio=best_cpu["check"] / best_cpu["pytest"],
    )  # fmt: skip


def _children_cpu() -> float:
    """User + system seconds of every waited-for descendant so far (pytest under check too)."""
    import resource  # lazy: POSIX only, for the timing rounds (the rest runs without it)

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def summarise(rows: list[LocaliseRow]) -> LocaliseSummary:
    ranks = [r for row in rows for r in row.ranks]
    count = len(ranks) or 1
    within = lambda n: sum(1 for r in ranks if r is not None and r <= n)  # noqa: E731
    return LocaliseSummary(
        bugs=len(rows), failures=len(ranks),
        top1=within(1) / count, top3=within(3) / count, top5=within(5) / count,
        none=sum(1 for r in ranks if r is None) / count,
    )  # fmt: skip


def table(rows: list[LocaliseRow], timings: list[Timing]) -> list[str]:
    """A Markdown table: one line per package, then all of them together."""
    lines = [
        "| package | bugs | failures | top-1 | top-3 | top-5 | no suspect | check / pytest |",
        "|---|---|---|---|---|---|---|---|",
    ]
    names = list(dict.fromkeys([r.package for r in rows] + [t.package for t in timings]))
    for name in [*names, "all"]:
        s = summarise([r for r in rows if name in (r.package, "all")])
        mine = [t for t in timings if name in (t.package, "all")]
        ratio = "-"
        if mine:
            worst = max(mine, key=lambda t: t.cpu_ratio)
            ratio = f"{worst.cpu_ratio:.2f}x cpu, {worst.ratio:.2f}x wall"
            ratio += " (worst)" if name == "all" else ""
        lines.append(
            f"| {name} | {s.bugs} | {s.failures} | {s.top1:.0%} | {s.top3:.0%} "
            f"| {s.top5:.0%} | {s.none:.0%} | {ratio} |"
        )
    return lines


def kinds_line(rows: list[LocaliseRow]) -> str:
    """Top-1 by kind of bug (and for closures), to show where the misses are."""
    parts = []
    for kind in sorted({r.kind for r in rows}):
        s = summarise([r for r in rows if r.kind == kind])
        parts.append(f"{kind} {s.top1:.0%} of {s.failures}")
    nested = summarise([r for r in rows if r.nested])
    parts.append(f"closures {nested.top1:.0%} of {nested.failures}")
    return "top-1 by kind: " + ", ".join(parts)


async def run_localise(
    *, per_package: int, only: list[str], options: RunOptions, timing_rounds: int, out=print
) -> tuple[list[LocaliseRow], list[Timing]]:
    rows: list[LocaliseRow] = []
    timings: list[Timing] = []
    for package in PACKAGES:
        if only and package.name not in only:
            continue
        pristine = fetch(package)
        with tempfile.TemporaryDirectory(prefix="heal-localise-") as scratch:
            root = Path(scratch) / pristine.name
            shutil.copytree(pristine, root)
            saved = os.environ.get("PYTHONPATH")
            os.environ["PYTHONPATH"] = str(root / package.pythonpath)  # the runs inherit it
            try:
                kept = 0
                for mutant in candidate_mutants(package, root):
                    if kept >= per_package:
                        break
                    row = await localise_bug(package, root, mutant, options)
                    if row is None:
                        continue  # no test caught it: not a bug this suite can localise
                    kept += 1
                    rows.append(row)
                    out(f"{row.package:16} {row.kind:6} ranks {row.ranks}  {row.bug}")
                if timing_rounds:
                    timings.append(overhead(package, root, timing_rounds))
                    out(f"{package.name:16} overhead {payload.to_object(timings[-1])}")
            finally:
                os.environ.pop("PYTHONPATH", None)
                if saved is not None:
                    os.environ["PYTHONPATH"] = saved
    return rows, timings
