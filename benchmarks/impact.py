"""`heal-ls index` vs plain `pytest -n auto` of the same suite, side by side, on a corpus project.

Takes a corpus project's tree (the fixed tree of its first bug) and its venv (with pytest-xdist),
then runs in turn, `--rounds` times: plain `python -m pytest -n auto` of the whole suite, and
`heal-ls index --full` (every test traced under pytest-xdist with a 5 s per-test timeout, rows
written to the impact map). Prints wall times, the ratio (target <= 1.3x), the map's size and
peak memory, and the cost of a re-index after editing one function (only its tests run).

    python benchmarks/impact.py [--project networkx] [--rounds 1]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from heal_ls.bench.corpus import load_bugs, load_projects, test_env, tree, venv


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    started = time.monotonic()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{cmd[:4]}... exited {done.returncode}: {done.stderr[-800:]}")
    return seconds, done.stdout


def edit_one_function(root: Path, target: str) -> str:
    """Append a statement to the body of the function `path::qualname` (a plain top-level def)."""
    path, _, name = target.partition("::")
    file = root / path
    text = file.read_text(encoding="utf-8")
    match = re.search(rf"^def {re.escape(name)}\(.*?\):\n", text, re.M | re.S)
    if match is None:
        raise SystemExit(f"no top-level def {name} in {path}")
    at = match.end()
    file.write_text(text[:at] + "    _heal_ls_bench = 1\n" + text[at:], encoding="utf-8")
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", default="networkx")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    project = load_projects()[args.project]
    bug = next(b for b in load_bugs() if b.project == args.project)
    python = venv(project)
    scratch = Path(tempfile.mkdtemp(prefix="heal-impact-bench-"))
    root = tree(bug, scratch / "tree", fixed=True)
    env = {**test_env(project, root), "HEAL_LS_CACHE_DIR": str(scratch / "cache")}
    plain_cmd = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "auto"]
    plain_cmd += [*project.pytest_args]
    index_cmd = [sys.executable, "-m", "heal_ls", "index", str(root), "--python", python]
    index_cmd += ["--full", "--json", "--pytest-args", " ".join(project.pytest_args)]
    plain, index, report = [], [], {}
    for round_ in range(args.rounds):
        plain.append(timed(plain_cmd, root, env)[0])
        seconds, out = timed(index_cmd, root, env)
        index.append(seconds)
        report = json.loads(out)
        print(
            f"round {round_ + 1}: pytest -n auto {plain[-1]:.1f} s, heal-ls index {seconds:.1f} s"
        )
    ratio = statistics.median(i / p for i, p in zip(index, plain, strict=True))
    print(
        f"{args.project} ({sum(report['tests'].values())} tests, {report['timed_out']} timed out)"
    )
    print(f"plain pytest -n auto: median {statistics.median(plain):.1f} s")
    print(f"heal-ls index --full: median {statistics.median(index):.1f} s  ratio {ratio:.2f}x")
    size, memory = report["map"], report["peak_memory_mb"]
    print(
        f"map: {size['rows']:,} rows, {size['functions']:,} functions, {size['tests']:,} tests, "
        f"{size['megabytes']:.1f} MB; peak memory: heal-ls {memory['heal_ls']:.0f} MB, "
        f"largest test process {memory['tests']:.0f} MB"
    )
    edited = edit_one_function(root, bug.functions[0])
    again_cmd = [c for c in index_cmd if c != "--full"]
    seconds, out = timed(again_cmd, root, env)
    again = json.loads(out)
    print(f"after editing {edited}: re-index ran {again['ran']} tests in {seconds:.1f} s")
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"largest process of the whole benchmark: {children:.0f} MB")
    if os.environ.get("KEEP") != "1":
        subprocess.run(["rm", "-rf", str(scratch)], check=False)


if __name__ == "__main__":
    main()
