"""The local search is repeatable: among candidates verified side by side, the best-ranked one
that passes wins, not the one whose test run happened to finish first."""

import asyncio

from heal_ls.heal.steps import _first_passing
from heal_ls.models import Candidate


async def verified_after(seconds: float, rank: int, passes: bool):
    await asyncio.sleep(seconds)
    return Candidate(f"def f(): return {rank}\n", "local", rank), ("module" if passes else None)


async def test_in_order_the_best_ranked_passing_candidate_wins_even_when_slower():
    for _ in range(3):
        jobs = [verified_after(0.2, 1, True), verified_after(0.01, 2, True)]
        candidate, _ = await _first_passing(jobs, in_order=True)
        assert candidate.attempt == 1


async def test_in_order_a_failing_first_candidate_hands_over_to_the_next():
    jobs = [verified_after(0.05, 1, False), verified_after(0.01, 2, True)]
    candidate, _ = await _first_passing(jobs, in_order=True)
    assert candidate.attempt == 2
    assert await _first_passing([verified_after(0.01, 1, False)], in_order=True) is None


async def test_model_candidates_keep_first_to_pass():
    jobs = [verified_after(0.2, 1, True), verified_after(0.01, 2, True)]
    candidate, _ = await _first_passing(jobs)
    assert candidate.attempt == 2
