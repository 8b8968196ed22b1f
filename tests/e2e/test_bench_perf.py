"""`heal-ls bench --perf` runs the side-by-side speed benchmark and prints its ratios."""

import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.e2e


def test_bench_perf_prints_the_warm_vs_cold_ratio_and_guard_discovery():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "heal_ls",
            "bench",
            "--perf",
            "--perf-rounds",
            "1",
            "--perf-warm-only",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"\d+(\.\d+)?x", proc.stdout), proc.stdout
    assert "warm" in proc.stdout
    # guard discovery on the bundled examples, uncached and cached, against its target
    row = re.search(
        r"Guard discovery \((\d+) suspects.*uncached median (\d+\.\d+) s.*cached (\d+\.\d+) ms"
        r" \(target <= 1 s\)",
        proc.stdout,
    )
    assert row and int(row[1]) >= 5, proc.stdout
