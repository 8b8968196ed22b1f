"""The anthropic and openai proposers, with the real SDKs against the fake model server."""

import asyncio
import logging
import socket

import pytest
from heal_ls.llm import ProviderError
from heal_ls.llm.anthropic import AnthropicProposer
from heal_ls.llm.base import Prompt
from heal_ls.llm.openai_compat import OpenAIProposer
from heal_ls.llm.retry import RetryPolicy
from helpers import fakemodel

fake_model = fakemodel.fake_model  # the shared fixture
KEY = "sk-test-SECRETKEY1234567890abcdef"
PROMPT = Prompt(system="You fix Python functions.", user="Fix:\ndef add(a, b):\n    return a - b\n")
ANSWER = "```python\ndef add(a, b):\n    return a + b\n```\n"
FAST = RetryPolicy(max_retries=2, base_delay=0.01, max_delay=0.5, max_total_wait=1.0)
PROVIDERS = ["anthropic", "openai"]


def make(kind, server, **options):
    options.setdefault("retry", FAST)
    options.setdefault("timeout", 5.0)
    if kind == "anthropic":
        return AnthropicProposer(
            "claude-test", api_key=KEY, base_url=server.anthropic_url, **options
        )
    return OpenAIProposer("gpt-test", api_key=KEY, base_url=server.openai_url, **options)


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_plain_answer_and_usage(fake_model, kind):
    fake_model.push(ANSWER)
    proposal = await make(kind, fake_model).propose(PROMPT)
    assert proposal.text == ANSWER
    assert proposal.input_tokens > 0 and proposal.output_tokens > 0
    (request,) = fake_model.requests
    assert request.wire == kind and not request.stream
    assert request.model == ("claude-test" if kind == "anthropic" else "gpt-test")
    assert "You fix Python functions." in request.prompt_text
    assert "return a - b" in request.prompt_text


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_streamed_chunks_add_up_to_the_answer(fake_model, kind):
    fake_model.push(ANSWER, chunk_size=5)
    chunks = []
    proposal = await make(kind, fake_model).propose(PROMPT, on_chunk=chunks.append)
    assert len(chunks) > 5 and "".join(chunks) == proposal.text == ANSWER
    assert proposal.output_tokens > 0
    assert fake_model.requests[0].stream


async def test_openai_asks_for_stream_usage_and_falls_back_when_refused(fake_model):
    fake_model.push(ANSWER, reject_stream_options=True)
    fake_model.push(ANSWER)
    proposer = make("openai", fake_model, retry=RetryPolicy(max_retries=0))
    proposal = await proposer.propose(PROMPT, on_chunk=lambda _: None)
    assert proposal.text == ANSWER
    first, second = fake_model.requests
    assert first.body["stream_options"] == {"include_usage": True}
    assert "stream_options" not in second.body


@pytest.mark.parametrize("kind", PROVIDERS)
@pytest.mark.parametrize(
    "status, words",
    [
        (401, "authentication failed (401)"),
        (403, "permission denied (403)"),
        (404, "not found (404)"),
        (400, "request rejected (400)"),
    ],
)
async def test_client_errors_are_one_line_and_not_retried(fake_model, kind, status, words):
    fake_model.push_error(status, f"bad request for key {KEY}")
    with pytest.raises(ProviderError) as err:
        await make(kind, fake_model).propose(PROMPT)
    message = str(err.value)
    assert words in message and message.startswith(kind + ":")
    assert "\n" not in message and KEY not in message and "SECRETKEY" not in message
    assert len(fake_model.requests) == 1


@pytest.mark.parametrize("kind", PROVIDERS)
@pytest.mark.parametrize("status", [429, 500, 529])
async def test_transient_errors_are_retried(fake_model, kind, status):
    fake_model.push_error(status, "busy", headers={"retry-after": "0"})
    fake_model.push(ANSWER)
    assert (await make(kind, fake_model).propose(PROMPT)).text == ANSWER
    assert len(fake_model.requests) == 2


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_persistent_rate_limit_gives_up_after_bounded_retries(fake_model, kind):
    for _ in range(5):
        fake_model.push_error(429, "slow down", headers={"retry-after": "0.01"})
    with pytest.raises(ProviderError) as err:
        await make(kind, fake_model).propose(PROMPT)
    assert len(fake_model.requests) == 3
    assert "rate limited (429) after 3 attempts; retry after 0.01s" in str(err.value)


async def test_long_retry_after_gives_up_at_once(fake_model):
    fake_model.push_error(429, "quota", headers={"retry-after": "3600"})
    with pytest.raises(ProviderError, match="retry after 3600s"):
        await make("anthropic", fake_model).propose(PROMPT)
    assert len(fake_model.requests) == 1


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_slow_first_byte_times_out(fake_model, kind):
    fake_model.push(ANSWER, first_byte_delay=2.0)
    proposer = make(kind, fake_model, timeout=0.2, retry=RetryPolicy(max_retries=0))
    with pytest.raises(
        ProviderError, match=r"no answer from http://127\.0\.0\.1:\d+.* within 0.2s"
    ):
        await proposer.propose(PROMPT)


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_stalled_stream_times_out_without_resending_text(fake_model, kind):
    fake_model.push("x" * 50, chunk_size=10, chunk_delay=1.0)
    fake_model.push(ANSWER)
    chunks = []
    proposer = make(kind, fake_model, timeout=0.3)
    with pytest.raises(ProviderError, match="within 0.3s"):
        await proposer.propose(PROMPT, on_chunk=chunks.append)
    assert chunks and len(fake_model.requests) == 1  # text was shown: no silent retry


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_connection_refused_is_clear_and_quick(kind):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again when the block ends
    url = f"http://127.0.0.1:{port}" + ("/v1" if kind == "openai" else "")
    cls = AnthropicProposer if kind == "anthropic" else OpenAIProposer
    proposer = cls(api_key=KEY, base_url=url, retry=FAST, timeout=2.0)
    with pytest.raises(ProviderError) as err:
        await proposer.propose(PROMPT)
    assert str(err.value) == f"{kind}: cannot connect to {url}: connection refused"


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_cancelling_closes_the_stream(fake_model, kind):
    fake_model.push("y" * 400, chunk_size=2, chunk_delay=0.02)
    first_chunk = asyncio.Event()
    task = asyncio.create_task(
        make(kind, fake_model).propose(PROMPT, on_chunk=lambda _: first_chunk.set())
    )
    await asyncio.wait_for(first_chunk.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(100):
        if fake_model.requests[0].closed_early:
            break
        await asyncio.sleep(0.02)
    assert fake_model.requests[0].closed_early


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_key_never_logged_or_shown(fake_model, kind, caplog):
    caplog.set_level(logging.DEBUG)
    fake_model.push_error(401, f"Incorrect API key provided: {KEY}")
    proposer = make(kind, fake_model)
    with pytest.raises(ProviderError) as err:
        await proposer.propose(PROMPT)
    assert KEY in fake_model.requests[0].headers.get("authorization", "") + fake_model.requests[
        0
    ].headers.get("x-api-key", "")
    assert KEY not in str(err.value) and KEY not in repr(proposer)
    assert KEY[:12] not in caplog.text


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_masked_secrets_come_back_in_the_answer(fake_model, kind):
    prompt = Prompt(
        "sys", "TOKEN = ***SECRET_1***", masks={"***SECRET_1***": "sk-realvalue1234567890"}
    )
    fake_model.push('def f():\n    return "***SECRET_1***"\n')
    proposal = await make(kind, fake_model).propose(prompt)
    assert proposal.text == 'def f():\n    return "sk-realvalue1234567890"\n'
    assert "sk-realvalue" not in fake_model.requests[0].prompt_text


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_error_event_before_any_text_is_retried(fake_model, kind):
    fake_model.push("never shown", error_after=0, error="Overloaded")
    fake_model.push(ANSWER)
    chunks = []
    proposal = await make(kind, fake_model).propose(PROMPT, on_chunk=chunks.append)
    assert proposal.text == "".join(chunks) == ANSWER and len(fake_model.requests) == 2


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_error_event_mid_stream_is_one_clear_line(fake_model, kind):
    fake_model.push(ANSWER, error_after=2, error="Overloaded right now")
    with pytest.raises(ProviderError) as err:
        await make(kind, fake_model).propose(PROMPT, on_chunk=lambda _: None)
    assert str(err.value) == f"{kind}: the server reported an error: Overloaded right now"


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_dropped_stream_is_reported_not_half_returned(fake_model, kind):
    fake_model.push(ANSWER, drop_after=2)
    with pytest.raises(ProviderError, match=f"{kind}: connection to .* lost while streaming"):
        await make(kind, fake_model).propose(PROMPT, on_chunk=lambda _: None)


async def test_trickling_answer_hits_the_request_timeout(fake_model):
    """Every chunk comes within the read timeout, the whole answer never within the request's."""
    fake_model.push("z" * 20, chunk_size=1, chunk_delay=0.1)
    proposer = make("openai", fake_model, timeout=1.0, request_timeout=1.5)
    with pytest.raises(ProviderError, match=r"^openai: the answer from .* took longer than 1.5s"):
        await proposer.propose(PROMPT, on_chunk=lambda _: None)
    for _ in range(100):  # on a loaded machine the server may note the request late
        if fake_model.requests:
            break
        await asyncio.sleep(0.05)
    assert len(fake_model.requests) == 1  # and no retry
