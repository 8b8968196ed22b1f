"""`heal-ls check --test X` vs plain `pytest <X's file>` on a big corpus project (issue 22).

Takes a corpus bug's buggy tree (its failing test fails) and its project's venv, then times, side
by side and alternating (the order flips every round), two fresh processes per round with the
same interpreter and venv:

- plain: `python -m pytest -q <the failing test's file>` (the project's pytest arguments);
- plain, one test: `python -m pytest -q <the failing test>` (what heal-ls runs at best);
- heal-ls: `heal-ls check --python <venv python> --test <the failing test>` (one traced run of
  that file, ranked, reported; rows written to the impact map; on a re-check, without the
  file's tests the map vouches for).

Three settings, each `--rounds` rounds; heal-ls's ratio to each plain side is taken round by
round and its median printed:

- first (with --first): nothing cached on either side: no bytecode for the project (PYTHONDONTWRITEBYTECODE=1,
  no __pycache__ in the tree) and an empty heal-ls cache (no impact map, no instrumented code);
- cold: an empty impact map for every heal-ls run; the compiled code is cached on both sides
  (plain pytest's bytecode, heal-ls's instrumented modules) (target <= 1.5x);
- re-check: both sides warm (heal-ls keeps its map), and before every pair one function (the
  bug's fixed function) is edited before every process, so each recompiles that module (target
  <= 1.2x against plain pytest of the file).

heal-ls's own package is byte-compiled once first (an installed heal-ls is).

    python benchmarks/check_speed.py [--bug networkx-5668c02f] [--rounds 5] [--first]
                                     [--heal-ls-src OLD_TREE/server]
"""

from __future__ import annotations

import argparse
import ast
import compileall
import os
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import heal_ls
from heal_ls.bench.corpus import Bug, load_bugs, load_projects, tree, venv

MARK = "_heal_ls_bench"


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and its children: what the load hides less)."""
    started, before = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    seconds, after = time.monotonic() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 1:  # the failing test fails: 1 for pytest and for heal-ls check
        raise SystemExit(f"{shlex.join(cmd[:6])}... exited {done.returncode}:\n{done.stderr}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return seconds, cpu


def edit_function(root: Path, target: str, value: int) -> None:
    """Put `_heal_ls_bench = value` first in the body of `path::qualname` (after its
    docstring), replacing the one an earlier round put there."""
    path, _, qualname = target.partition("::")
    file = root / path
    text = re.sub(rf"(?m)^[ \t]*{MARK} = \d+\n", "", file.read_text(encoding="utf-8"))
    scope: list[ast.stmt] = ast.parse(text).body
    node: ast.AST | None = None
    for name in qualname.split("."):
        node = next(n for n in scope if getattr(n, "name", None) == name)
        scope = node.body  # type: ignore[attr-defined]
    first = scope[0]
    docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
    at = (first.end_lineno or first.lineno) if docstring else first.lineno - 1
    lines = text.splitlines(keepends=True)
    lines.insert(at, " " * first.col_offset + f"{MARK} = {value}\n")
    file.write_text("".join(lines), encoding="utf-8")


def no_bytecode(root: Path) -> None:
    for folder in root.rglob("__pycache__"):
        shutil.rmtree(folder, ignore_errors=True)


Side = tuple[list[str], dict[str, str]]  # a command and its environment
NAMES = ("pytest file", "pytest test", "heal-ls check")  # the sides, in that order


def rounds(label: str, count: int, root: Path, sides: list[Side], before) -> None:
    """Time the sides `count` times, in order and then reversed every other round;
    `before(round, side)` runs before each. Print each round and the medians, with heal-ls's
    ratio to plain pytest of the file and to plain pytest of the one test, pair by pair."""
    times: list[list[float]] = [[] for _ in sides]
    cpus: list[list[float]] = [[] for _ in sides]
    for round_ in range(count):
        order = list(range(len(sides)))
        for side in order if round_ % 2 == 0 else order[::-1]:
            before(round_, side)
            wall, cpu = timed(sides[side][0], root, sides[side][1])
            times[side].append(wall)
            cpus[side].append(cpu)
        file, test, heal = (t[-1] for t in times)
        print(
            f"  {label} {round_ + 1}: pytest file {file:.2f} s, pytest test {test:.2f} s, "
            f"heal-ls check {heal:.2f} s ({heal / file:.2f}x, {heal / test:.2f}x)"
        )
    for kind, found in (("wall", times), ("CPU", cpus)):
        medians = ", ".join(f"{n} {statistics.median(t):.2f} s" for n, t in zip(NAMES, found))
        for plain, what in ((found[0], "the file"), (found[1], "the one test")):
            ratio = statistics.median(h / p for h, p in zip(found[2], plain, strict=True))
            print(
                f"{label}: {kind} vs plain pytest of {what}: median ratio {ratio:.2f}x ({medians})"
            )
    sys.stdout.flush()


def commands(bug: Bug, python: str, pytest_args, root: Path) -> tuple[list[str], ...]:
    """(plain pytest of the failing test's file, plain pytest of the test, heal-ls check)."""
    test = bug.failing_tests[0]
    plain = [python, "-m", "pytest", "-q", *pytest_args, test.split("::", 1)[0]]
    one = [python, "-m", "pytest", "-q", *pytest_args, test]
    heal = [sys.executable, "-m", "heal_ls", "check", "--python", python, "--test", test]
    heal += ["--pytest-args", shlex.join(pytest_args), str(root)]
    return plain, one, heal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bug", default="networkx-5668c02f")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--first", action="store_true", help="also time the first run")
    parser.add_argument("--heal-ls-src", metavar="DIR", help="heal_ls from DIR (an older tree)")
    args = parser.parse_args()
    bug = load_bugs(only=[args.bug])[0]
    project = load_projects()[bug.project]
    python = venv(project)
    source = Path(args.heal_ls_src) if args.heal_ls_src else Path(heal_ls.__file__).parent.parent
    compileall.compile_dir(source / "heal_ls", quiet=1)
    scratch = Path(tempfile.mkdtemp(prefix="heal-check-speed-"))
    root = tree(bug, scratch / "tree")
    plain_cmd, one_cmd, heal_cmd = commands(bug, python, project.pytest_args, root)
    base = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")
    }
    base["PYTHONPATH"] = str(root / project.pythonpath)
    if args.heal_ls_src:  # the project's own path still comes first for its tests
        base["PYTHONPATH"] += os.pathsep + str(source)
    cold = {**base, "PYTHONDONTWRITEBYTECODE": "1"}
    print(f"{bug.id}: {bug.failing_tests[0]}; {python}")
    cache = scratch / "warm"
    warm = {**base, "HEAL_LS_CACHE_DIR": str(cache)}
    sides = [(plain_cmd, base), (one_cmd, base), (heal_cmd, warm)]

    if args.first:
        firsts = [(plain_cmd, cold), (one_cmd, cold), (heal_cmd, cold)]

        def first(round_: int, side: int) -> None:
            no_bytecode(root)
            firsts[2] = (heal_cmd, {**cold, "HEAL_LS_CACHE_DIR": str(scratch / f"first-{round_}")})

        rounds("first", args.rounds, root, firsts, first)
    for side in sides:  # fill the caches
        timed(side[0], root, side[1])

    def empty_map(round_: int, side: int) -> None:
        if side == 2:
            shutil.rmtree(cache / "impact", ignore_errors=True)

    rounds("cold", args.rounds, root, sides, empty_map)
    timed(sides[2][0], root, sides[2][1])  # the map is filled again

    def edited(round_: int, side: int) -> None:  # every process compiles the edited module
        edit_function(root, bug.functions[0], round_ * len(sides) + side)

    rounds("re-check", args.rounds, root, sides, edited)
    if os.environ.get("KEEP") != "1":
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
