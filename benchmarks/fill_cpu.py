"""CPU seconds of `heal-ls index --full` against plain `pytest -n auto` of the same suite.

Wall clock on a shared 2-core machine is noise; CPU is not. Each command runs with this process
as a child subreaper (Linux prctl), so every process of its tree, the xdist workers included, is
reaped here or by its own parent and counted in RUSAGE_CHILDREN: the totals are exact. A poll
of /proc (every 0.2 s) splits them by role: heal-ls itself, pytest's controller, its workers
(seconds a process spent after its last poll are missed: the split is approximate, the total
is not).

    python benchmarks/fill_cpu.py [--project networkx] [--rounds 3] [--tree DIR] [--only index]

The commands are benchmarks/impact.py's (plain: `python -m pytest -q -p no:cacheprovider -n
auto`; index: `heal-ls index --full --json`). `--tree DIR` reuses a tree made by an earlier run
(`KEEP=1` keeps it; its path is printed). Every run gets a fresh heal-ls cache, as
impact.py's first round: an empty map, and the workspace's instrumented code compiled again
(plain pytest compiles the modules too: the corpus env sets PYTHONDONTWRITEBYTECODE).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from heal_ls.bench.corpus import load_bugs, load_projects, test_env, tree, venv

PR_SET_CHILD_SUBREAPER = 36
TICK = os.sysconf("SC_CLK_TCK")
ROLES = ("heal-ls", "controller", "workers")


def subreaper() -> None:
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise SystemExit("prctl(PR_SET_CHILD_SUBREAPER) failed: CPU totals would miss orphans")


def cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def role(cmdline: list[str]) -> str:
    text = " ".join(cmdline)
    if "heal_ls" in text and " index " in f" {text} ":
        return "heal-ls"
    if "exec(eval(" in text or "execnet" in text:
        return "workers"
    return "controller"


class Poll:
    """The last seen CPU of every process descending from `top` (or handed to this subreaper),
    by pid, with when it was first and last seen."""

    def __init__(self, top: int) -> None:
        self.ours = {top, os.getpid()}
        self.seen: dict[int, tuple[str, float, float, float]] = {}  # kind, cpu, first, last
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.done.wait(0.2):
            now = time.monotonic()
            for name in sorted(os.listdir("/proc"), key=lambda n: (len(n), n)):
                if name.isdigit():
                    self._look(int(name), now)

    def _look(self, pid: int, now: float) -> None:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            if pid not in self.ours and int(fields[1]) not in self.ours:
                return
            self.ours.add(pid)
            cpu = (int(fields[11]) + int(fields[12])) / TICK
            known = self.seen.get(pid)
            kind, first = (known[0], known[2]) if known else (role(self._cmdline(pid)), now)
        except (OSError, ValueError, IndexError):
            return
        if pid != os.getpid():
            self.seen[pid] = (kind, cpu, first, now)

    def _cmdline(self, pid: int) -> list[str]:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")

    def stop(self, started: float) -> dict[str, tuple[float, float, float]]:
        """Per role: (CPU seconds, first seen, last seen), the times from `started`."""
        self.done.set()
        self.thread.join()
        split = {kind: (0.0, float("inf"), 0.0) for kind in ROLES}
        for kind, cpu, first, last in self.seen.values():
            total, begun, ended = split[kind]
            split[kind] = (total + cpu, min(begun, first - started), max(ended, last - started))
        return split


def measured(
    cmd: list[str], cwd: Path, env: dict[str, str]
) -> tuple[float, float, dict[str, tuple[float, float, float]]]:
    """(CPU seconds of the whole process tree, its wall seconds, its split by role)."""
    before, started = cpu_children(), time.monotonic()
    child = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    poll = Poll(child.pid)
    _, err = child.communicate()
    while True:  # the orphans this subreaper inherited
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
    wall = time.monotonic() - started
    split = poll.stop(started)
    if child.returncode not in (0, 1):
        raise SystemExit(f"{cmd[:4]}... exited {child.returncode}: {err.decode()[-800:]}")
    return cpu_children() - before, wall, split


def copy_map(source: Path, dest: Path) -> None:
    """The map as its writer left it, its write-ahead log included (sqlite's backup)."""
    with sqlite3.connect(source) as src, sqlite3.connect(dest) as out:
        src.backup(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", default="networkx")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tree", type=Path, help="a tree an earlier run kept (KEEP=1)")
    parser.add_argument("--target", default="", help="a folder of the suite only (relative)")
    parser.add_argument("--test-timeout", type=float, help="the index's per-test timeout")
    parser.add_argument("--heal-ls-src", type=Path, help="heal_ls from DIR (an older tree)")
    parser.add_argument("--maps", type=Path, help="copy each index run's map into this folder")
    parser.add_argument("--only", choices=("plain", "index"), help="run one side only")
    args = parser.parse_args()
    subreaper()
    project = load_projects()[args.project]
    bug = next(b for b in load_bugs() if b.project == args.project)
    python = venv(project)
    scratch = Path(tempfile.mkdtemp(prefix="heal-fill-cpu-"))
    root = args.tree or tree(bug, scratch / "tree", fixed=True)
    env = test_env(project, root)
    if args.heal_ls_src:  # the project's own path still comes first for its tests
        env["PYTHONPATH"] += os.pathsep + str(args.heal_ls_src)
    plain_cmd = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "auto"]
    plain_cmd += [*project.pytest_args, *([args.target] if args.target else [])]
    index_cmd = [sys.executable, "-m", "heal_ls", "index", str(root / args.target)]
    index_cmd += ["--python", python]
    if args.test_timeout:
        index_cmd += ["--test-timeout", str(args.test_timeout)]
    index_cmd += ["--full", "--json", "--pytest-args", " ".join(project.pytest_args)]
    sides = {"plain": plain_cmd, "index": index_cmd}
    if args.only:
        sides = {args.only: sides[args.only]}
    totals: dict[str, list[float]] = {side: [] for side in sides}
    for round_ in range(args.rounds):
        for side, cmd in sides.items():
            # a fresh cache each run, as impact.py's first round: an empty map, the
            # instrumented modules compiled again (plain pytest compiles them too: no bytecode)
            cache = {"HEAL_LS_CACHE_DIR": str(scratch / f"cache-{side}-{round_}")}
            cpu, wall, split = measured(cmd, root, {**env, **cache})
            totals[side].append(cpu)
            if args.maps and side == "index":
                args.maps.mkdir(parents=True, exist_ok=True)
                for made in Path(cache["HEAL_LS_CACHE_DIR"], "impact").glob("*.sqlite"):
                    copy_map(made, args.maps / f"round-{round_ + 1}.sqlite")
            parts = ", ".join(
                f"{kind} {used:.1f} (seen {first:.1f}-{last:.1f} s)"
                for kind, (used, first, last) in split.items()
                if used
            )
            print(
                f"round {round_ + 1} {side}: {cpu:.1f} s CPU, {wall:.1f} s wall: {parts}",
                flush=True,
            )
    for side, cpus in totals.items():
        print(f"{side}: median {statistics.median(cpus):.1f} s CPU of {len(cpus)}")
    if len(totals) == 2:
        pairs = [i / p for i, p in zip(totals["index"], totals["plain"], strict=True)]
        print(f"index / plain CPU: median {statistics.median(pairs):.3f}x, pairs {pairs}")
    if os.environ.get("KEEP") == "1":
        print(f"kept: {root}")
    else:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
