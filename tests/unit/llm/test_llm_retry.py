"""Retry policy: bounded attempts, backoff, retry-after honoured, total wait capped."""

import pytest
from heal_ls.llm.errors import CallError, describe
from heal_ls.llm.retry import RetryPolicy, call_with_retries


class Flaky:
    """Fails with the given CallErrors in order, then answers."""

    def __init__(self, *errors):
        self.errors, self.calls = list(errors), 0

    async def __call__(self):
        self.calls += 1
        if self.errors:
            raise LookupError(self.errors.pop(0))
        return "answer"


def to_error(exc):
    return exc.args[0] if isinstance(exc, LookupError) else None


class GaveUp(Exception):
    pass


async def run(flaky, policy, **kw):
    sleeps = []

    async def sleep(seconds):
        sleeps.append(seconds)

    result = await call_with_retries(
        flaky, to_error, lambda err, n: GaveUp(err, n), policy, sleep=sleep, **kw
    )
    return result, sleeps


async def test_backoff_doubles_until_success():
    flaky = Flaky(CallError("status", 500), CallError("timeout"))
    result, sleeps = await run(flaky, RetryPolicy(max_retries=2, base_delay=0.5))
    assert result == "answer" and sleeps == [0.5, 1.0] and flaky.calls == 3


async def test_retry_after_is_honoured():
    _, sleeps = await run(Flaky(CallError("status", 429, retry_after=2.5)), RetryPolicy())
    assert sleeps == [2.5]


async def test_gives_up_after_max_retries_with_attempt_count():
    errors = [CallError("status", 529)] * 4
    with pytest.raises(GaveUp) as gave_up:
        await run(Flaky(*errors), RetryPolicy(max_retries=2, base_delay=0.01))
    assert gave_up.value.args[1] == 3


async def test_total_wait_is_capped():
    errors = [CallError("status", 429, retry_after=4.0)] * 3
    with pytest.raises(GaveUp):
        _, sleeps = await run(Flaky(*errors), RetryPolicy(max_retries=5, max_total_wait=5.0))


@pytest.mark.parametrize(
    "err",
    [
        CallError("status", 401),
        CallError("status", 404),
        CallError("connect", detail="connection refused"),
    ],
)
async def test_hopeless_errors_are_not_retried(err):
    flaky = Flaky(err)
    with pytest.raises(GaveUp):
        await run(flaky, RetryPolicy())
    assert flaky.calls == 1


async def test_no_retry_once_text_was_shown():
    flaky = Flaky(CallError("timeout"))
    with pytest.raises(GaveUp):
        await run(flaky, RetryPolicy(), may_retry=lambda: False)
    assert flaky.calls == 1


async def test_unknown_exceptions_pass_through():
    async def broken():
        raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):
        await run(broken, RetryPolicy())


@pytest.mark.parametrize(
    "err, expected",
    [
        (CallError("status", 401), "p: authentication failed (401), the API key was rejected"),
        (
            CallError("status", 404, detail="no such model"),
            "p: model 'm' not found (404) at http://x: no such model; try --model",
        ),
        (
            CallError("status", 429, retry_after=3),
            "p: rate limited (429) after 3 attempts; retry after 3s",
        ),
        (CallError("status", 529), "p: service overloaded (529) after 3 attempts"),
        (CallError("status", 502), "p: server error (502) after 3 attempts"),
        (CallError("timeout"), "p: no answer from http://x within 1.5s after 3 attempts"),
        (
            CallError("connect", detail="connection refused"),
            "p: cannot connect to http://x: connection refused after 3 attempts",
        ),
    ],
)
def test_descriptions(err, expected):
    assert describe("p", err, model="m", base_url="http://x", attempts=3, timeout=1.5) == expected
