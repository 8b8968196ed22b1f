"""Bounded retries with exponential backoff that honours retry-after and caps the total wait."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from heal_ls.llm.errors import CallError

T = TypeVar("T")


@dataclass
class RetryPolicy:
    max_retries: int = 2  # so at most 3 calls
    base_delay: float = 1.0  # first backoff; doubles each time
    max_delay: float = 20.0  # a longer retry-after than this means: give up now
    max_total_wait: float = 30.0  # never sleep more than this in total across retries


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    to_error: Callable[[BaseException], CallError | None],
    on_give_up: Callable[[CallError, int], BaseException],
    policy: RetryPolicy,
    may_retry: Callable[[], bool] = lambda: True,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> T:
    """Run call(); on a retryable provider error wait and retry, else raise on_give_up(err, n).

    may_retry() lets a streaming caller refuse a retry once text has reached the user.
    Exceptions that to_error does not recognise (bugs, cancellation) pass through untouched.
    """
    waited, attempt = 0.0, 0
    while True:
        attempt += 1
        try:
            return await call()
        except Exception as exc:
            err = to_error(exc)
            if err is None:
                raise
            delay = _delay(policy, err, attempt)
            if delay is None or waited + delay > policy.max_total_wait or not may_retry():
                raise on_give_up(err, attempt) from None
        waited += delay
        await sleep(delay)


def _delay(policy: RetryPolicy, err: CallError, attempt: int) -> float | None:
    if not err.retryable or attempt > policy.max_retries:
        return None
    backoff = policy.base_delay * 2 ** (attempt - 1)
    if err.retry_after is not None:
        if err.retry_after > policy.max_delay:
            return None
        return max(err.retry_after, 0.0)
    return min(backoff, policy.max_delay)
