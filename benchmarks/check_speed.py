"""`heal-ls check --test X` vs plain `pytest <X's file>` on a big corpus project (issue 22).

Takes a corpus bug's buggy tree (its failing test fails) and its project's venv, then times, side
by side and alternating (the order flips every round), two fresh processes per round with the
same interpreter and venv:

- plain: `python -m pytest -q <the failing test's file>` (the project's pytest arguments);
- heal-ls: `heal-ls check --python <venv python> --test <the failing test>` (one traced run of
  that file, ranked, reported; rows written to the impact map).

Three settings, each `--rounds` pairs; the ratio is taken pair by pair and its median printed:

- first (with --first): nothing cached on either side: no bytecode for the project (PYTHONDONTWRITEBYTECODE=1,
  no __pycache__ in the tree) and an empty heal-ls cache (no impact map, no instrumented code);
- cold: an empty impact map for every heal-ls run; the compiled code is cached on both sides
  (plain pytest's bytecode, heal-ls's instrumented modules) (target <= 1.5x);
- re-check: both sides warm (heal-ls keeps its map), and before every pair one function (the
  bug's fixed function) is edited, so both recompile that module (target <= 1.2x).

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


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.monotonic()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    if done.returncode != 1:  # the failing test fails: 1 for pytest and for heal-ls check
        raise SystemExit(f"{shlex.join(cmd[:6])}... exited {done.returncode}:\n{done.stderr}")
    return seconds


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


def rounds(label: str, count: int, pair) -> None:
    """Run `pair(round, heal_first)` `count` times; print each pair and the medians."""
    plain, heal = [], []
    for round_ in range(count):
        p, h = pair(round_, heal_first=round_ % 2 == 1)
        plain.append(p)
        heal.append(h)
        print(f"  {label} {round_ + 1}: pytest {p:.2f} s, heal-ls check {h:.2f} s ({h / p:.2f}x)")
    ratio = statistics.median(h / p for h, p in zip(heal, plain, strict=True))
    print(
        f"{label}: plain pytest median {statistics.median(plain):.2f} s, heal-ls check median "
        f"{statistics.median(heal):.2f} s, median ratio {ratio:.2f}x",
        flush=True,
    )


def both(plain_cmd, heal_cmd, root: Path, plain_env, heal_env, heal_first: bool):
    if heal_first:
        h = timed(heal_cmd, root, heal_env)
        return timed(plain_cmd, root, plain_env), h
    p = timed(plain_cmd, root, plain_env)
    return p, timed(heal_cmd, root, heal_env)


def commands(bug: Bug, python: str, pytest_args, root: Path) -> tuple[list[str], list[str]]:
    test = bug.failing_tests[0]
    plain = [python, "-m", "pytest", "-q", *pytest_args, test.split("::", 1)[0]]
    heal = [sys.executable, "-m", "heal_ls", "check", "--python", python, "--test", test]
    heal += ["--pytest-args", shlex.join(pytest_args), str(root)]
    return plain, heal


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
    plain_cmd, heal_cmd = commands(bug, python, project.pytest_args, root)
    base = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")
    }
    base["PYTHONPATH"] = str(root / project.pythonpath)
    if args.heal_ls_src:  # the project's own path still comes first for its tests
        base["PYTHONPATH"] += os.pathsep + str(source)
    cold = {**base, "PYTHONDONTWRITEBYTECODE": "1"}
    print(f"{bug.id}: {bug.failing_tests[0]}; {python}")

    def first_pair(round_: int, heal_first: bool):
        no_bytecode(root)
        heal_env = {**cold, "HEAL_LS_CACHE_DIR": str(scratch / f"first-{round_}")}
        return both(plain_cmd, heal_cmd, root, cold, heal_env, heal_first)

    if args.first:
        rounds("first", args.rounds, first_pair)
    cache = scratch / "warm"
    warm = {**base, "HEAL_LS_CACHE_DIR": str(cache)}
    both(plain_cmd, heal_cmd, root, base, warm, heal_first=False)  # fill both caches

    def cold_pair(round_: int, heal_first: bool):
        shutil.rmtree(cache / "impact", ignore_errors=True)
        return both(plain_cmd, heal_cmd, root, base, warm, heal_first)

    rounds("cold", args.rounds, cold_pair)
    both(plain_cmd, heal_cmd, root, base, warm, heal_first=False)  # the map is filled again

    def recheck_pair(round_: int, heal_first: bool):
        edit_function(root, bug.functions[0], round_)
        return both(plain_cmd, heal_cmd, root, base, warm, heal_first)

    rounds("re-check", args.rounds, recheck_pair)
    if os.environ.get("KEEP") != "1":
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
