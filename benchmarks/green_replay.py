"""What "changed since the last green run" does to ranking on the real-bug corpus (issue 25).

The corpus has no green run of its own: each bug is a release's sdist plus the fixing commit's
tests. The simulation: the user last saw the suite pass on the project's previous release in the
corpus cache (a released tree, its own suite green), and now works on the buggy release. That
previous release's source becomes the map's green snapshot (impact/green.keep_green, what a
green run would have kept), then `heal-ls check --json` runs on the buggy tree as `bench --real`
runs it, once with a fresh map (no green run: the baseline) and once with the snapshot. Bugs of a
project's earliest cached release have no earlier tree and are left out. It needs the corpus
cache (`heal-ls bench --real` fills it); it downloads nothing.

    python benchmarks/green_replay.py [--only BUG|PROJECT ...]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from heal_ls.bench.corpus import CACHE, load_bugs, load_projects, test_env, tree, venv
from heal_ls.bench.real import first_suspects, heal_ls, rank, read_document
from heal_ls.documents.check import CheckDocument
from heal_ls.impact.green import keep_green
from heal_ls.impact.store import ImpactMap
from packaging.version import InvalidVersion, Version


def previous_release(project: str, version: str) -> Path | None:
    """The newest cached source tree of `project` older than `version`."""
    found = []
    for folder in (CACHE / "src").glob(f"{project}-*"):
        tail = folder.name[len(project) + 1 :]
        try:
            found.append((Version(tail), folder))
        except InvalidVersion:
            continue
    older = [(v, f) for v, f in found if v < Version(version)]
    return max(older)[1] if older else None


def sources(tree_root: Path) -> list[str]:
    skip = {".git", ".tox", "build", "dist", "docs", "doc", "tests", "test", "benchmarks"}
    return [
        p.relative_to(tree_root).as_posix()
        for p in tree_root.rglob("*.py")
        if not skip.intersection(p.relative_to(tree_root).parts)
    ]


def check(root: Path, python: str, project, bug, cache: Path) -> list[tuple[str | None, str]]:
    """The first failing test's suspects, (path, qualname), as `heal-ls check --json` ranks them."""
    env = {**test_env(project, root), "HEAL_LS_CACHE_DIR": str(cache)}
    cmd = [*heal_ls("check"), "--json", "--python", python]
    cmd += ["--pytest-args", shlex.join(project.pytest_args), "--test-timeout", "10"]
    cmd += [f"--test={t}" for t in bug.failing_tests]
    done = subprocess.run(
        [*cmd, str(root)], cwd=root, env=env, capture_output=True, text=True, timeout=1800
    )
    document = read_document(CheckDocument, "check", done)
    return [] if isinstance(document, str) else first_suspects(document) or []


def replay(bug, projects, scratch: Path) -> dict | None:
    older = previous_release(bug.project, bug.version)
    if older is None:
        return None
    project = projects[bug.project]
    python = venv(project)
    root = tree(bug, scratch / bug.id)
    plain = check(root, python, project, bug, scratch / f"{bug.id}-cache-plain")
    seeded_cache = scratch / f"{bug.id}-cache-green"
    os.environ["HEAL_LS_CACHE_DIR"] = str(seeded_cache)
    with ImpactMap.open(str(root), python) as impact:
        keep_green(impact.db, str(older), sources(older))
        changed = impact.changed_since_green(_all_keys(root, sources(root)))
    green = check(root, python, project, bug, seeded_cache)
    fixed_changed = [f for f in bug.functions if _changed(f, older, root)]
    return {
        "bug": bug.id, "green": older.name, "changed": len(changed),
        "fixed_changed": len(fixed_changed), "functions": len(bug.functions),
        "before": rank(plain, bug.functions), "after": rank(green, bug.functions),
    }  # fmt: skip


def _changed(function: str, older: Path, root: Path) -> bool:
    """Is the fixed function (path::qualname) not as it was in the older release?"""
    from heal_ls.impact.fingerprints import file_functions

    path, qualname = function.split("::", 1)
    then, now = file_functions(str(older / path)), file_functions(str(root / path))
    mine = now.functions.get(qualname) if now else None
    was = then.functions.get(qualname) if then else None
    return mine is None or was is None or mine.fingerprint != was.fingerprint


def _all_keys(root: Path, rels: list[str]) -> list[str]:
    """Every function of those files as "abs_path:first_line" (to count what changed)."""
    from heal_ls.impact.fingerprints import file_functions

    keys = []
    for rel in rels:
        found = file_functions(str(root / rel))
        keys += [f"{root / rel}:{p.line}" for p in found.functions.values()] if found else []
    return keys


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="*", default=())
    args = parser.parse_args()
    projects = load_projects()
    rows = []
    with tempfile.TemporaryDirectory(prefix="green-replay-") as scratch:
        for bug in load_bugs(only=args.only):
            row = replay(bug, projects, Path(scratch))
            if row is not None:
                rows.append(row)
                print(json.dumps(row), flush=True)
    within = lambda key, n: sum(1 for r in rows if r[key] is not None and r[key] <= n)  # noqa: E731
    print(
        f"{len(rows)} bugs with an earlier cached release: top-1 {within('before', 1)} -> "
        f"{within('after', 1)}, top-3 {within('before', 3)} -> {within('after', 3)}, "
        f"fixed function changed since green in {sum(r['fixed_changed'] > 0 for r in rows)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
