"""Heal overhead outside model time, and K=3 vs K=1 candidates, measured side by side.

Uses an instant fake model (tests/helpers/fakemodel.py) that answers a right fix (each answer a distinct
variant), so every second measured is heal-ls's own: prompt, parse, splice, checks, verification.

    python benchmarks/heal_overhead.py [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from heal_ls.heal.config import HealConfig  # noqa: E402
from heal_ls.heal.loop import heal_failure  # noqa: E402
from heal_ls.testing.runner import run_pytest  # noqa: E402
from helpers.fakemodel import FakeModelServer  # noqa: E402
from helpers.fixes import example_fixes  # noqa: E402

EXAMPLE = "stats"


async def one_heal(root: str, failure, run, candidates: int, warm: bool) -> float:
    config = HealConfig(provider="openai", candidates=candidates, use_cache=False, warm=warm)
    started = time.perf_counter()
    result = await heal_failure(root, failure, config=config, run=run)
    elapsed = time.perf_counter() - started
    if result.status != "verified":
        raise SystemExit(f"benchmark heal did not verify: {result.status}: {result.reason}")
    return elapsed


async def measure(rounds: int) -> dict[str, list[float]]:
    work = Path(tempfile.mkdtemp(prefix="heal-bench-"))
    root = work / EXAMPLE
    shutil.copytree(REPO / "examples" / EXAMPLE, root)
    fix = example_fixes()[EXAMPLE]
    times: dict[str, list[float]] = {"cold K=1": [], "warm K=1": [], "warm K=3": []}
    fixed = fix.fixed_function(root)
    counter = itertools.count(1)

    def distinct_fix(_body) -> str:
        """Each answer differs in its AST (an extra string statement), so none is deduplicated
        and K=3 really verifies three candidates side by side."""
        head, _, rest = fixed.partition(":\n")
        return f"```python\n{head}:\n    'variant {next(counter)}'\n{rest}```"

    with FakeModelServer(responder=distinct_fix) as server:
        os.environ.update(OPENAI_BASE_URL=server.openai_url, OPENAI_API_KEY="bench-not-a-key")
        run = await run_pytest(str(root))
        failure = run.failures[0]
        await one_heal(str(root), failure, run, 1, warm=True)  # start the warm runner once
        for _ in range(rounds):  # interleaved, so load changes hit every variant alike
            times["cold K=1"].append(await one_heal(str(root), failure, run, 1, warm=False))
            times["warm K=1"].append(await one_heal(str(root), failure, run, 1, warm=True))
            times["warm K=3"].append(await one_heal(str(root), failure, run, 3, warm=True))
    shutil.rmtree(work, ignore_errors=True)
    return times


def report(times: dict[str, list[float]]) -> dict[str, float]:
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(f"heal overhead per attempt (instant fake model, example '{EXAMPLE}'):")
    for name, value in medians.items():
        print(f"  {name:<10} median {value:6.3f} s over {len(times[name])} runs")
    ratio = medians["warm K=3"] / medians["warm K=1"]
    print(f"  K=3 vs K=1 wall time: {ratio:.2f}x (target <= 1.3x)")
    print(f"  warm K=1 overhead: {medians['warm K=1']:.3f} s (target <= 1 s)")
    return {"overhead_s": medians["warm K=1"], "k3_vs_k1": ratio}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    report(asyncio.run(measure(args.rounds)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
