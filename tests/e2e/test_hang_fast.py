"""A hang healed fast: when the failing test loops forever, candidates are verified with a short
per-test timeout derived from the guards' durations, not the full one each. On the bundled
examples/hang (`lo = mid` in a binary search never ends)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from heal_ls.diagnose import diagnose
from heal_ls.heal.config import HealConfig
from heal_ls.heal.loop import heal_failure
from heal_ls.testing.options import RunOptions
from helpers.projects import write_files

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
    # candidates are verified side by side and the rest are cancelled once one wins: how many
    # hanging ones finished first depends on the machine's load (9 idle, 1 in a loaded CI run)
    assert len(hung) >= 1  # a candidate still looped ...
    assert all("did not finish within 1 s" in why for why in hung)  # ... each stopped after 1 s
    assert all(a.outcome == "timeout" for a in result.attempts if "did not finish" in a.failure)
    assert any("candidates get 1 s per test" in message for message in events)
    (won,) = [a.failure for a in result.attempts if a.outcome == "verified"]
    runs = r"\((\d) of \1 runs; confirmed by a plugin-free run\)"  # more runs when times vary
    assert re.fullmatch(r"1 failing test\(s\) now pass; 2 guard\(s\) pass " + runs, won), won


async def test_a_candidate_that_loops_forever_costs_the_originals_time_not_the_timeout(tmp_path):
    """The failing test itself does not hang; candidates of the search do (`i *= 1` never ends
    the loop): each is stopped at a timeout sized from the original's durations and reported as
    timed out against them, and the search goes on to the real fix."""
    root = write_files(
        tmp_path / "loops",
        {
            "totals.py": """
                def total(xs):
                    i, s = 0, 0
                    while i < len(xs):
                        s = xs[i]
                        i += 1
                    return s
                """,
            "test_totals.py": """
                from totals import total

                def test_total():
                    assert total([1, 2, 3]) == 6

                def test_single():
                    assert total([4]) == 4
                """,
        },
    )
    run, located = await diagnose(root, RunOptions(test_timeout=FULL_TIMEOUT))
    ((failure, where),) = located
    assert not failure.timed_out and failure.duration > 0
    config = HealConfig(provider="local", test_timeout=FULL_TIMEOUT, use_cache=False)
    result = await heal_failure(
        str(root), failure, config=config, run=run, suspect=where.suspects[0]
    )
    assert result.status == "verified" and "+        s += xs[i]\n" in result.diff
    assert result.candidate_timeout == 1.0  # the floor: these tests take milliseconds
    hung = [a for a in result.attempts if a.outcome == "timeout"]
    assert hung, [(a.outcome, a.failure) for a in result.attempts]  # `i *= 1` and the like
    for attempt in hung:
        assert re.match(r"timed out \(\d+ x the original's time\): ", attempt.failure)
        assert "did not finish within 1 s" in attempt.failure
