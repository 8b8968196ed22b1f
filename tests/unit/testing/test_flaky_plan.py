"""How many re-runs flaky triage buys: enough to catch a test passing one run in five with 95%
confidence when the test is fast, fewer (said with their confidence) when it is slow."""

from __future__ import annotations

import asyncio

from heal_ls.models import Failure
from heal_ls.testing import flaky
from heal_ls.testing.flaky import FULL_RERUNS, MIN_RERUNS, Flaky, reruns_for
from heal_ls.testing.options import RunOptions


def test_a_fast_test_gets_the_full_fourteen_and_a_slow_one_fits_the_budget():
    assert FULL_RERUNS == 14 and 0.8**FULL_RERUNS < 0.05 < 0.8 ** (FULL_RERUNS - 1)
    assert reruns_for(0.01) == FULL_RERUNS
    assert reruns_for(2.0, budget=10.0) == 5
    assert reruns_for(60.0, budget=10.0) == MIN_RERUNS


def test_the_label_says_what_confidence_the_reruns_gave():
    assert "96% confidence" in Flaky(runs=15, passed=0).label()
    assert "36% confidence" in Flaky(runs=3, passed=0).label()
    assert Flaky(runs=4, passed=1).label() == "flaky: passed 1 of 4 runs"


def test_triage_reruns_at_most_the_configured_count_and_none_at_zero(monkeypatch):
    """`fix --flaky-runs N` (heal.flakyRuns in the editor) caps the re-runs; 0 turns triage off."""
    asked: list[int] = []

    async def recheck(root, nodeid, times, options, stop_at_pass):
        asked.append(times)
        return Flaky(runs=times + 1, passed=0)

    monkeypatch.setattr(flaky, "recheck", recheck)
    failure = Failure(id="t.py::t", exc_type="AssertionError", message="", test="t.py::t")
    options = RunOptions()
    assert asyncio.run(flaky.triage("/p", failure, 0.01, options)) == Flaky(FULL_RERUNS + 1, 0)
    assert asyncio.run(flaky.triage("/p", failure, 0.01, options, most=3)) == Flaky(4, 0)
    assert asyncio.run(flaky.triage("/p", failure, 0.01, options, most=0)) is None
    assert asked == [FULL_RERUNS, 3]
