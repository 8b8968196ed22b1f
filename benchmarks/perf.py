"""heal-ls performance figures, measured side by side in one run on this machine.

1. Focused re-run of one test: cold `python -m pytest`, heal-ls's cold runner, and the warm runner
   (interleaved rounds, medians of wall time and of the test process's CPU time; target >= 8x),
   each also in the candidate sandbox (its overhead per warm run: target <= 100 ms).
2. Guard discovery (the traced run that finds the passing tests around a suspect) on the bundled
   examples with the warm runner: uncached (a fresh cache each round) and cached (target <= 1 s).
3. The other benchmarks, when their files exist (each run as its own process, output shown):
   code_action.py (LSP), heal_overhead.py (heal loop, K=3 vs K=1), prompt_size.py,
   plugin_overhead.py, plan_speed.py (multi-node plan + proof).

    python benchmarks/perf.py [--rounds 10] [--only-warm]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from heal_ls.testing import sandbox as sandboxing
from heal_ls.testing.options import RunOptions
from heal_ls.testing.runner import run_pytest
from heal_ls.testing.warm import client as warm_module
from heal_ls.testing.warm.client import WarmRunner

HERE = Path(__file__).resolve().parent
OTHERS = [
    ("code_action.py", "textDocument/codeAction latency (target p99 <= 10 ms)"),
    ("heal_overhead.py", "heal overhead per attempt and K=3 vs K=1"),
    ("prompt_size.py", "prompt characters vs whole files (target <= 0.3x)"),
    ("plugin_overhead.py", "plugin tracing overhead (target <= 1.3x)"),
    ("plan_speed.py", "multi-node plan + proof in a 5,000-line module (target <= 50 ms)"),
]
OTHER_TIMEOUT = 900.0

MODULE = """\
def mean(values):
    return sum(values) / (len(values) - 1)


def clamp(value, low, high):
    return max(low, min(value, high))
"""
TESTS = """\
from stats import clamp, mean


def test_mean():
    assert mean([1, 2, 3]) == 2
""" + "".join(
    f"\n\ndef test_clamp_{i}():\n    assert clamp({i}, 0, 10) == min({i}, 10)\n" for i in range(40)
)
FOCUS = "tests/test_stats.py::test_mean"
CACHED = "cold runner, .pyc cached"
BOXED = "warm runner, sandboxed"


def build_project(root: Path) -> None:
    (root / "tests").mkdir(parents=True)
    (root / "stats.py").write_text(MODULE)
    (root / "tests" / "test_stats.py").write_text(TESTS)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


async def timed(make_run) -> tuple[float, float]:
    """Wall seconds and CPU seconds of one run (CPU of the processes that ran the test)."""
    cpu, started = children_cpu(), time.perf_counter()
    cpu_of_run = await make_run()
    wall = time.perf_counter() - started
    return wall, cpu_of_run if cpu_of_run is not None else children_cpu() - cpu


async def measure_focused_rerun(rounds: int) -> dict[str, list[tuple[float, float]]]:
    root = Path(tempfile.mkdtemp(prefix="heal-perf-")) / "proj"
    build_project(root)
    warm_module.LEARNED_DIR = str(root.parent / "learned")  # start as a first session would
    warm = WarmRunner(sys.executable, str(root))

    async def plain():
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", FOCUS]
        await asyncio.to_thread(subprocess.run, cmd, cwd=root, capture_output=True, timeout=120)

    async def cold():
        result = await run_pytest(root, nodeids=[FOCUS])
        assert result.failed == 1, result

    async def warmed():
        result = await run_pytest(root, RunOptions(warm=warm), nodeids=[FOCUS])
        assert result.failed == 1 and warm.cold_runs == 0, result
        return warm.last_cpu

    async def warm_boxed():
        result = await run_pytest(root, RunOptions(warm=warm, sandbox=True), nodeids=[FOCUS])
        twins = list(warm.boxed.values())
        assert result.failed == 1 and all(t.cold_runs == 0 for t in twins), result
        return twins[0].last_cpu if twins else warm.last_cpu

    async def cold_boxed():
        result = await run_pytest(root, RunOptions(sandbox=True), nodeids=[FOCUS])
        assert result.failed == 1, result

    async def cold_cached():
        saved = dict(os.environ)
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = str(root.parent / "pycache")
        try:
            await cold()
        finally:
            os.environ.clear()
            os.environ.update(saved)

    variants = {"cold python -m pytest": plain, "cold heal-ls runner": cold}
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):  # also the best case for cold: .pyc caches on
        variants[CACHED] = cold_cached
    variants["warm runner"] = warmed
    if sandboxing.level() != "none":
        variants[BOXED] = warm_boxed
        variants["cold runner, sandboxed"] = cold_boxed
    try:
        startup = [await timed(warmed) for _ in range(2)]  # start, then learn what to preload
        for _ in range(2 if BOXED in variants else 0):
            await timed(warm_boxed)  # the sandboxed twin server starts and learns too
        print(
            f"warm runner start-up: first run {startup[0][0]:.2f} s (server start, nothing"
            f" preloaded yet), second {startup[1][0]:.2f} s (preloads learned from the first)\n"
        )
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
        for _ in range(rounds):  # interleaved, so load changes hit every variant alike
            for name, run in variants.items():
                times[name].append(await timed(run))
        return times
    finally:
        warm.close()


def report_focused_rerun(times: dict[str, list[tuple[float, float]]]) -> dict[str, float]:
    medians = {
        name: (statistics.median(w for w, _ in values), statistics.median(c for _, c in values))
        for name, values in times.items()
    }
    base_wall, base_cpu = medians["cold heal-ls runner"]
    rounds = len(next(iter(times.values())))
    print(f"Focused re-run of one test ({FOCUS}), {rounds} interleaved rounds, medians:")
    print(f"  {'variant':<24}{'wall s':>9}{'vs warm':>9}{'cpu s':>9}{'vs warm':>9}")
    warm_wall, warm_cpu = medians["warm runner"]
    for name, (wall, cpu) in medians.items():
        print(f"  {name:<24}{wall:9.3f}{wall / warm_wall:8.1f}x{cpu:9.3f}{cpu / warm_cpu:8.1f}x")
    ratio = base_wall / warm_wall
    print(f"  cold -> warm speed-up (heal-ls runner, wall): {ratio:.1f}x (target >= 8x)")
    figures = {"warm_speedup": ratio, "warm_wall_s": warm_wall, "cold_wall_s": base_wall}
    if CACHED in medians:
        figures["warm_speedup_vs_cached"] = medians[CACHED][0] / warm_wall
        print(
            "  PYTHONDONTWRITEBYTECODE is set here, so plain cold runs re-rewrite every plugin;"
            f" against cold runs with .pyc caches: {figures['warm_speedup_vs_cached']:.1f}x"
        )
    if BOXED in medians:
        overhead = (medians[BOXED][0] - warm_wall) * 1000
        figures["sandbox_overhead_ms"] = overhead
        print(
            f"  sandbox ({sandboxing.level()}) overhead per warm run: {overhead:.0f} ms"
            " (target <= 100 ms)"
        )
    else:
        print(f"  sandbox: {sandboxing.describe()}")
    return figures


GUARD_EXAMPLES = ("inventory", "stats", "nested", "property", "async_fetch", "deep_crash")


async def measure_guard_discovery(rounds: int) -> tuple[list[float], list[float], int]:
    """Seconds per suspect of guard discovery, uncached and cached, over the bundled examples."""
    import shutil

    from heal_ls.diagnose import diagnose
    from heal_ls.heal.guards import find_guards

    scratch = Path(tempfile.mkdtemp(prefix="heal-perf-guards-"))
    uncached, cached, guards = [], [], 0
    saved_cache = os.environ.get("HEAL_LS_CACHE_DIR")
    for name in GUARD_EXAMPLES:
        root = scratch / name
        shutil.copytree(HERE.parent / "examples" / name, root)
        warm = WarmRunner(sys.executable, str(root))
        try:
            run, located = await diagnose(root, RunOptions(test_timeout=5, warm=warm))
            targets = [(f, where.suspects[0]) for f, where in located if where.suspects]
            for failure, suspect in targets:
                discover = (find_guards, str(root), suspect, [failure], warm)
                for round_ in range(rounds + 1):  # round 0 warms the runner up: not counted
                    os.environ["HEAL_LS_CACHE_DIR"] = str(scratch / f"cache-{name}-{round_}")
                    seconds, found = await timed_guards(*discover)
                    if round_:
                        uncached.append(seconds)
                seconds, again = await timed_guards(*discover)
                assert again.seconds == 0.0 and again.tests == found.tests, "not cached"
                cached.append(seconds)
                guards += len(found.tests)
        finally:
            warm.close()
    if saved_cache is None:
        os.environ.pop("HEAL_LS_CACHE_DIR", None)
    else:
        os.environ["HEAL_LS_CACHE_DIR"] = saved_cache
    return uncached, cached, guards


async def timed_guards(find_guards, root, suspect, failures, warm):
    started = time.perf_counter()
    options = RunOptions(python=sys.executable, warm=warm)
    found = await find_guards(root, suspect, failures, None, options)
    return time.perf_counter() - started, found


def report_guard_discovery(uncached: list[float], cached: list[float], guards: int) -> None:
    if not uncached:
        print("\nGuard discovery: no bundled example found (needs a source checkout)")
        return
    print(
        f"\nGuard discovery ({len(cached)} suspects of {len(GUARD_EXAMPLES)} bundled examples,"
        f" {guards} guards, warm runner): uncached median {statistics.median(uncached):.2f} s,"
        f" max {max(uncached):.2f} s; cached {statistics.median(cached) * 1000:.1f} ms"
        " (target <= 1 s)"
    )


def run_other(file: str, title: str) -> None:
    path = HERE / file
    print(f"\n== {title} ({file})")
    if not path.exists():
        print("  skipped: not present yet")
        return
    try:
        done = subprocess.run(
            [sys.executable, str(path)], capture_output=True, text=True, timeout=OTHER_TIMEOUT
        )
    except subprocess.TimeoutExpired:
        print(f"  skipped: did not finish in {OTHER_TIMEOUT:g} s")
        return
    text = done.stdout.strip() or done.stderr.strip()[-2000:]
    status = "" if done.returncode == 0 else f"  (exit code {done.returncode})\n"
    print(status + textwrap.indent(text, "  "))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--only-warm", action="store_true", help="skip the other benchmarks")
    args = parser.parse_args(argv)
    print(f"heal-ls perf on {os.cpu_count()} cores, Python {sys.version.split()[0]}\n")
    report_focused_rerun(asyncio.run(measure_focused_rerun(args.rounds)))
    report_guard_discovery(*asyncio.run(measure_guard_discovery(min(args.rounds, 3))))
    if not args.only_warm:
        for file, title in OTHERS:
            run_other(file, title)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
