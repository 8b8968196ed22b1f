"""A hang healed fast: when the failing test loops forever, candidates are verified with a short
per-test timeout derived from the guards' durations, not the full one each."""

from __future__ import annotations

import pytest
from heal_ls.diagnose import diagnose
from heal_ls.heal.config import HealConfig
from heal_ls.heal.loop import heal_failure
from heal_ls.testing.options import RunOptions
from helpers.cli import write

pytestmark = pytest.mark.e2e

FULL_TIMEOUT = 10.0  # what every hanging candidate would cost without hang-fast


async def test_a_hang_is_healed_with_short_timeouts_for_the_hanging_candidates(tmp_path):
    write(
        tmp_path,
        {
            "conftest.py": '"""Puts this folder on sys.path."""\n',
            "bits.py": """
                def count_bits(n):
                    count = 0
                    while n:
                        n ^= n - 1
                        count += 1
                    return count
            """,
            "tests/test_bits.py": """
                from bits import count_bits


                def test_zero():
                    assert count_bits(0) == 0


                def test_five():
                    assert count_bits(5) == 2
            """,
        },
    )
    run, located = await diagnose(tmp_path, RunOptions(test_timeout=2))
    ((failure, where),) = located
    assert failure.timed_out
    events = []
    config = HealConfig(provider="local", test_timeout=FULL_TIMEOUT, use_cache=False)
    result = await heal_failure(
        str(tmp_path), failure, config=config, run=run, suspect=where.suspects[0],
        on_event=lambda event: events.append(event.message),
    )  # fmt: skip
    assert result.status == "verified" and "+        n &= n - 1" in result.diff
    assert result.candidate_timeout == 1.0  # the floor: the guard test_zero takes milliseconds
    hung = [a.failure for a in result.attempts if "did not finish" in a.failure]
    assert len(hung) >= 2  # several candidates still looped ...
    assert all("did not finish within 1 s" in why for why in hung)  # ... each stopped after 1 s
    assert any("candidates get 1 s per test" in message for message in events)
    assert result.attempts[-1].failure == "1 failing test(s) now pass; 1 guard(s) pass"
