"""How much the heal-ls pytest plugin (JSON report + call tracing + watchdog) slows pytest down.

Builds a test-heavy project in a temp dir (N tests calling workspace functions), then runs, in
interleaved rounds: plain pytest, pytest + plugin without tracing, pytest + plugin with tracing.
Prints medians of wall time, of pytest's own session time and of the child's CPU time (the
figure least disturbed by other load on the machine), and the ratios (target <= 1.3x).

    python benchmarks/plugin_overhead.py [--tests 300] [--rounds 5]
"""

from __future__ import annotations

import argparse
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from heal_ls.testing.invocation import build_pytest_invocation
from heal_ls.testing.options import RunOptions

WORKSPACE = """
def tokenize(text):
    return [word.strip(".,") for word in text.split()]


def count_words(text):
    counts = {}
    for word in tokenize(text):
        counts[word] = counts.get(word, 0) + 1
    return counts


class Cart:
    def __init__(self):
        self.items = []

    def add(self, name, price, qty=1):
        self.items.append((name, price, qty))

    def total(self):
        return sum(price * qty for _, price, qty in self.items)


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
"""

TEST_TEMPLATE = """
from bench_pkg.core import Cart, count_words, fib


def test_words_{i}():
    assert count_words("a b a, c. b a")["a"] == 3


def test_cart_{i}():
    cart = Cart()
    for k in range(20):
        cart.add("item", k, 2)
    assert cart.total() == 380


def test_fib_{i}():
    assert fib(12) == 144
"""

SESSION_TIME = re.compile(r" in (\d+(?:\.\d+)?)s")


def build_project(root: Path, tests: int) -> None:
    (root / "bench_pkg").mkdir()
    (root / "bench_pkg" / "__init__.py").write_text("")
    (root / "bench_pkg" / "core.py").write_text(WORKSPACE)
    (root / "tests").mkdir()
    per_file = 3
    for i in range(max(1, tests // per_file)):
        (root / "tests" / f"test_bench_{i}.py").write_text(TEST_TEMPLATE.format(i=i))


def variants(root: Path) -> dict[str, tuple[list[str], dict | None]]:
    plain = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    out = {"plain pytest": (plain, None)}
    for name, trace in (("plugin, no tracing", False), ("plugin + tracing", True)):
        inv = build_pytest_invocation(root, RunOptions(trace=trace, test_timeout=10.0))
        out[name] = ([*inv.command, "-p", "no:cacheprovider"], inv.env)
    return out


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(cmd: list[str], env: dict | None, cwd: Path) -> tuple[float, float, float]:
    started, cpu_before = time.perf_counter(), child_cpu()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    wall, cpu = time.perf_counter() - started, child_cpu() - cpu_before
    if done.returncode != 0:
        raise SystemExit(f"benchmark run failed ({done.returncode}):\n{done.stdout[-2000:]}")
    found = SESSION_TIME.findall(done.stdout)
    return wall, float(found[-1]) if found else wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="heal-ls-bench-") as tmp:
        root = Path(tmp)
        build_project(root, args.tests)
        runs = variants(root)
        samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name in runs}
        run_once(*runs["plain pytest"], root)  # warm the file cache and __pycache__
        for _ in range(args.rounds):
            for name, (cmd, env) in runs.items():
                samples[name].append(run_once(cmd, env, root))
    medians = {
        name: [statistics.median(col) for col in zip(*rows)] for name, rows in samples.items()
    }
    base = medians["plain pytest"]
    print(f"{args.tests} tests, {args.rounds} interleaved rounds, medians (ratio to plain pytest)")
    print(f"{'variant':<22}{'wall s':>14}{'session s':>16}{'cpu s':>16}")
    for name, values in medians.items():
        cells = "".join(f"{v:>9.2f} {v / b:>4.2f}x" for v, b in zip(values, base))
        print(f"{name:<22}{cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
