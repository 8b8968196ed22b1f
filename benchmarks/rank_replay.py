"""Ranking on the real-bug corpus without re-running a test: capture each bug's evidence once,
then re-rank it as often as the ranking changes.

`--capture` runs the same pipeline `heal-ls check --test <failing tests>` runs in
`heal-ls bench --real` (diagnose: the failing tests' files, the contrast the map lends, the
history) on each bug's buggy tree, and keeps the run, the evidence and the failures as JSON
under `--store` with the tree they ran in. Without `--capture` it calls `locate` on what was
kept, with this checkout's ranking, and prints where the developer's fixed function ranks
(top-1, top-3, listed) per bug, per mining round (bug.json's round; `--round N` takes only those)
and in all: seconds instead of a corpus run. The evidence holds
absolute paths into the kept trees, so keep the store where it was captured. `bench --real
--check-only` stays the measurement; this is the inner loop (it needs the corpus cache). The
evidence holds each test's blocks (which branches of the functions it ran) since the run records
them: a store captured before that replays with function-level evidence only, so re-capture.

`--suite localise` does the same for `heal-ls bench --suite localise` (the injected mutations
of four packages, 12 a package): each mutant's evidence is kept with the mutated module's text,
replayed as an unsaved overlay over one pristine tree a package.

    python benchmarks/rank_replay.py --capture [--only BUG|PROJECT ...]
    python benchmarks/rank_replay.py [--only ...] [--round N ...] [--show N]
    python benchmarks/rank_replay.py --suite localise [--capture]
    python benchmarks/rank_replay.py --green [--only ...]

`--green` replays benchmarks/green_replay.py's question on the kept evidence: the project's
previous cached release is the last green snapshot, the functions the failing tests ran that
differ from it are "changed since green" (impact/green.py, as `check` would read them from the
map), and each bug is ranked without and with that history.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # green_replay, a sibling script

from heal_ls import diagnose as pipeline  # noqa: E402
from heal_ls import payload
from heal_ls.bench.corpus import load_bugs, load_projects, test_env, tree, venv
from heal_ls.bench.real import rank
from heal_ls.bench.rows import LocaliseRow
from heal_ls.locate import locate
from heal_ls.models import Failure, RunResult
from heal_ls.testing.options import RunOptions

STORE = Path(tempfile.gettempdir()) / "heal-ls-rank-replay"  # outside any git checkout: git apply


@dataclass
class Evidence:
    """What --capture keeps of one real bug (its evidence.json)."""

    root: str  # the tree it ran in
    failures: list[Failure]
    evidence: RunResult | None  # the run locate ranks with (None: diagnose located nothing)


@dataclass
class MutantEvidence:
    """What --suite localise --capture keeps of one injected bug."""

    root: str
    package: str
    bug: str
    kind: str
    target: str  # the mutated module
    qualname: str  # the mutated function
    overlay: dict[str, str]  # {target: mutated text}
    failures: list[Failure]
    evidence: RunResult


def capture(bug, project, store: Path) -> None:
    where = store / bug.id
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    root = tree(bug, where / "tree")
    kept: dict = {}

    def keep(failures, root_, evidence, tests=None):
        kept.update(failures=failures, evidence=evidence)
        return original(failures, root_, evidence, tests)

    original = pipeline.locate_all
    saved, env = dict(os.environ), test_env(project, root)  # env first: it copies os.environ
    os.environ.clear()
    os.environ.update(env)
    os.environ["HEAL_LS_CACHE_DIR"] = str(where / "heal-cache")
    cwd = os.getcwd()
    os.chdir(root)
    pipeline.locate_all = keep
    try:
        options = RunOptions(venv(project), tuple(shlex.split(shlex.join(project.pytest_args))), 3)
        asyncio.run(pipeline.diagnose(str(root), options, tests=list(bug.failing_tests)))
    finally:
        pipeline.locate_all = original
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(saved)
    document = Evidence(str(root.resolve()), kept.get("failures", []), kept.get("evidence"))
    (where / "evidence.json").write_text(json.dumps(payload.to_object(document)), encoding="utf-8")


def changed_since(bug, root: str, failures: list[Failure], scratch: Path) -> list[str] | None:
    """The keys the failing tests ran whose function differs from the previous cached release
    (None: no earlier release is cached)."""
    from green_replay import previous_release, sources
    from heal_ls.impact.green import changed_since_green, keep_green
    from heal_ls.impact.schema import connect

    older = previous_release(bug.project, bug.version)
    if older is None:
        return None
    db = connect(scratch / f"{bug.id}.sqlite", root, sys.executable)
    keep_green(db, str(older), sources(older))
    keys = sorted({key for failure in failures for key in failure.covered})
    return changed_since_green(db, root, keys)


def ranking(bug, store: Path, green: Path | None = None) -> tuple:
    """(the kept Evidence, locate's answer on it), or (why not, None)."""
    found = store / bug.id / "evidence.json"
    if not found.is_file():
        return "not captured", None
    try:
        document = payload.from_object(Evidence, json.loads(found.read_text(encoding="utf-8")))
    except ValueError as exc:  # PayloadError too
        return f"malformed evidence: {exc}", None
    run = document.evidence
    failures = sorted((f for f in document.failures if f.test), key=lambda f: f.test or "")
    if not failures:
        return "no failure", None
    if green is not None:
        changed = changed_since(bug, document.root, failures, green)
        if changed is None:
            return "no earlier release", None
        run = run or RunResult(document.root)
        run.changed_since_green = changed
    return document, locate(failures[0], document.root, run)


def replay(bug, store: Path, show: int, green: Path | None = None) -> int | None | str:
    document, located = ranking(bug, store, green)
    if located is None:
        return document
    suspects = [(os.path.relpath(s.path, document.root), s.qualname) for s in located.suspects]
    position = rank(suspects, bug.functions)
    if show and position != 1:
        print(f"  {bug.id}: fixed {', '.join(bug.functions)}")
        for n, s in enumerate(located.suspects[:show], 1):
            print(f"    {n:>2} {s.score:.4f} {s.qualname} :: {s.reason}")
    return position


def capture_localise(store: Path, per_package: int = 12, test_timeout: float = 3) -> None:
    from heal_ls.bench import localise

    async def one(package, root, mutant, number):
        target = root / mutant.path
        original = target.read_text(encoding="utf-8")
        mutated = mutant.apply(original)
        kept: dict = {}

        def keep(failures, root_, evidence, tests=None):
            kept.update(failures=failures, evidence=evidence)
            return plain(failures, root_, evidence, tests)

        plain = pipeline.locate_all
        target.write_text(mutated, encoding="utf-8")
        pipeline.locate_all = keep
        try:
            options = RunOptions(test_timeout=test_timeout, run_timeout=300)
            tests = [package.tests] if package.tests else None
            run, _ = await pipeline.diagnose(root, options, tests=tests)
        finally:
            pipeline.locate_all = plain
            target.write_text(original, encoding="utf-8")
        failures = [f for f in kept.get("failures", []) if f.test]
        if run.error or not failures:
            return False
        document = MutantEvidence(
            root=str(root), package=package.name, bug=mutant.name, kind=mutant.kind,
            target=str(target), qualname=mutant.qualname, overlay={str(target): mutated},
            failures=failures, evidence=kept["evidence"],
        )  # fmt: skip
        found = store / "localise" / f"{package.name}-{number:02}.json"
        found.write_text(json.dumps(payload.to_object(document)), encoding="utf-8")
        return True

    async def every():
        for package in localise.PACKAGES:
            root = store / "localise" / package.name
            shutil.rmtree(root, ignore_errors=True)
            shutil.copytree(localise.fetch(package), root)
            os.environ["PYTHONPATH"] = str(root / package.pythonpath)
            kept = 0
            for mutant in localise.candidate_mutants(package, root):
                if kept >= per_package:
                    break
                print(f"capturing {package.name} {mutant.name}", file=sys.stderr, flush=True)
                kept += await one(package, root, mutant, kept)

    (store / "localise").mkdir(parents=True, exist_ok=True)
    saved = os.environ.get("PYTHONPATH")
    try:
        asyncio.run(every())
    finally:
        os.environ.pop("PYTHONPATH", None)
        if saved is not None:
            os.environ["PYTHONPATH"] = saved


def replay_localise(store: Path, show: int) -> None:
    from heal_ls.bench import localise

    rows = []
    for found in sorted((store / "localise").glob("*.json")):
        text = found.read_text(encoding="utf-8")
        document = payload.from_object(MutantEvidence, json.loads(text))
        failures = sorted(document.failures, key=lambda f: f.id)
        ranks = []
        for failure in failures[: localise.MAX_FAILURES_PER_BUG]:
            located = locate(failure, document.root, document.evidence, overlay=document.overlay)
            position = localise.rank_of(located.suspects, document.target, document.qualname)
            ranks.append(position)
            if show and position != 1:
                print(f"  {document.bug} ({failure.id}): rank {position}")
                for n, s in enumerate(located.suspects[:show], 1):
                    print(f"    {n:>2} {s.score:.4f} {s.qualname} :: {s.reason}")
        rows.append(
            LocaliseRow(
                package=document.package, bug=document.bug, kind=document.kind,
                nested=False, failures=len(failures), ranks=ranks, seconds=0.0,
            )
        )  # fmt: skip
        print(f"{document.package:16} {document.kind:6} ranks {ranks}  {document.bug}")
    print("\n".join(localise.table(rows, [])))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=())
    parser.add_argument("--round", nargs="+", type=int, default=(), dest="rounds", metavar="N")
    parser.add_argument("--capture", action="store_true")
    parser.add_argument("--store", type=Path, default=STORE)
    parser.add_argument("--show", type=int, default=0, help="the first N suspects of a miss")
    parser.add_argument("--suite", choices=["real", "localise"], default="real")
    parser.add_argument("--green", action="store_true", help="with the previous release as green")
    args = parser.parse_args()
    if args.suite == "localise":
        if args.capture:
            capture_localise(args.store)
        else:
            replay_localise(args.store, args.show)
        return 0
    projects = load_projects()
    bugs = load_bugs(only=args.only, rounds=args.rounds)
    if args.capture:
        for bug in bugs:
            print(f"capturing {bug.id}", file=sys.stderr, flush=True)
            capture(bug, projects[bug.project], args.store)
        return 0
    if args.green:
        return green_table(bugs, args.store)
    ranks = {}
    for bug in bugs:
        ranks[bug.id] = replay(bug, args.store, args.show)
        print(f"{bug.id}: {ranks[bug.id] if ranks[bug.id] is not None else '-'}")
    rounds = sorted({bug.round for bug in bugs})
    for number in rounds if len(rounds) > 1 else ():
        print(f"round {number}: " + totals([ranks[b.id] for b in bugs if b.round == number]))
    print(totals(list(ranks.values())))
    return 0


def totals(ranks: list) -> str:
    """'top-1 a/n, top-3 b/n, listed c/n' of replayed ranks (an int: listed at that rank)."""
    within = lambda n: sum(1 for r in ranks if isinstance(r, int) and r <= n)  # noqa: E731
    n = len(ranks)
    listed = sum(1 for r in ranks if isinstance(r, int))
    return f"top-1 {within(1)}/{n}, top-3 {within(3)}/{n}, listed {listed}/{n}"


def green_table(bugs, store: Path) -> int:
    rows = []
    with tempfile.TemporaryDirectory(prefix="rank-green-") as scratch:
        for bug in bugs:
            after = replay(bug, store, 0, Path(scratch))
            if not isinstance(after, int) and after is not None:
                print(f"{bug.id}: {after}")
                continue
            before = replay(bug, store, 0)
            rows.append((bug.id, before, after))
            print(f"{bug.id}: {before if before is not None else '-'} -> {after or '-'}")
    within = lambda i, n: sum(1 for r in rows if isinstance(r[i], int) and r[i] <= n)  # noqa: E731
    print(
        f"{len(rows)} bugs with an earlier cached release: top-1 {within(1, 1)} -> "
        f"{within(2, 1)}, top-3 {within(1, 3)} -> {within(2, 3)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
