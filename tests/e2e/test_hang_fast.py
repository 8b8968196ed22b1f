"""A hang healed fast: when the failing test loops forever, candidates are verified with a short
per-test timeout derived from the guards' durations, not the full one each. On the bundled
examples/hang (`lo = mid` in a binary search never ends)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from heal_ls.diagnose import diagnose
from heal_ls.heal.config import HealConfig
from heal_ls.heal.loop import heal_failure
from heal_ls.testing.options import RunOptions

pytestmark = pytest.mark.e2e

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "hang"
FULL_TIMEOUT = 10.0  # what every hanging candidate would cost without hang-fast


async def test_a_hang_is_healed_with_short_timeouts_for_the_hanging_candidates(tmp_path):
    root = tmp_path / "hang"
    shutil.copytree(EXAMPLE, root)
    run, located = await diagnose(root, RunOptions(test_timeout=2))
    ((failure, where),) = located
    assert failure.timed_out
    events = []
    config = HealConfig(provider="local", test_timeout=FULL_TIMEOUT, use_cache=False)
    result = await heal_failure(
        str(root), failure, config=config, run=run, suspect=where.suspects[0],
        on_event=lambda event: events.append(event.message),
    )  # fmt: skip
    assert result.status == "verified" and "+            lo = mid + 1\n" in result.diff
    assert result.candidate_timeout == 1.0  # the floor: the guards take milliseconds
    hung = [a.failure for a in result.attempts if "did not finish" in a.failure]
    assert len(hung) >= 2  # several candidates still looped ...
    assert all("did not finish within 1 s" in why for why in hung)  # ... each stopped after 1 s
    assert any("candidates get 1 s per test" in message for message in events)
    (won,) = [a.failure for a in result.attempts if a.outcome == "verified"]
    assert won == "1 failing test(s) now pass; 2 guard(s) pass"
