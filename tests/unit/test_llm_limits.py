"""Limits on what a model may cost: a total time per heal step, an idle timeout on streams, a cap
on the answer's size (reading stops there), and no credentials from a URL in any message."""

import logging
import socket
import time

import pytest
from heal_ls.llm import ProviderError
from heal_ls.llm.anthropic import AnthropicProposer
from heal_ls.llm.base import Prompt
from heal_ls.llm.openai_compat import OpenAIProposer
from heal_ls.llm.retry import RetryPolicy
from heal_ls.lsp.log import RedactFilter
from heal_ls.redact import mask_secrets, redact, redact_url_credentials
from helpers import fakemodel

fake_model = fakemodel.fake_model  # the shared fixture
PROMPT = Prompt(system="You fix Python functions.", user="Fix:\ndef add(a, b):\n    return a - b\n")
FAST = RetryPolicy(max_retries=2, base_delay=0.01, max_delay=0.5, max_total_wait=1.0)
PROVIDERS = ["anthropic", "openai"]


def make(kind, server, **options):
    options.setdefault("retry", FAST)
    if kind == "anthropic":
        return AnthropicProposer(
            "claude-test", api_key="k" * 20, base_url=server.anthropic_url, **options
        )
    return OpenAIProposer("gpt-test", api_key="k" * 20, base_url=server.openai_url, **options)


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_a_silent_model_costs_at_most_the_request_timeout(fake_model, kind):
    for _ in range(3):
        fake_model.push("def add(a, b):\n    return a + b\n", first_byte_delay=5.0)
    started = time.monotonic()
    with pytest.raises(ProviderError, match=r"(took longer than|within) 0\.6s"):
        await make(kind, fake_model, request_timeout=0.6).propose(PROMPT)
    assert time.monotonic() - started < 3.0  # not 3 x 120 s of retries: the total is capped


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_a_stalled_stream_hits_the_idle_timeout(fake_model, kind):
    fake_model.push("x" * 60, chunk_size=10, chunk_delay=3.0)
    chunks = []
    with pytest.raises(ProviderError, match="within 0.5s"):
        await make(kind, fake_model, timeout=0.5).propose(PROMPT, on_chunk=chunks.append)
    assert chunks  # it had started: the idle timeout, not the request timeout, ended it


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_a_huge_streamed_answer_stops_being_read_at_the_cap(fake_model, kind):
    fake_model.push("y" * 200_000, chunk_size=1000, chunk_delay=0.02)  # 4 s to send in full
    chunks = []
    started = time.monotonic()
    with pytest.raises(ProviderError, match="larger than 5000 characters; stopped reading"):
        await make(kind, fake_model, max_answer=5000).propose(PROMPT, on_chunk=chunks.append)
    assert sum(map(len, chunks)) <= 5000
    assert time.monotonic() - started < 2.0
    assert len(fake_model.requests) == 1  # not retried: it would be as big again


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_a_huge_answer_is_refused_when_not_streamed(fake_model, kind):
    fake_model.push("z" * 20_000)
    with pytest.raises(ProviderError, match="larger than 5000 characters"):
        await make(kind, fake_model, max_answer=5000).propose(PROMPT)


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_url_credentials_never_appear_in_errors(kind):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://alice:hunter2secret@127.0.0.1:{port}" + ("/v1" if kind == "openai" else "")
    cls = AnthropicProposer if kind == "anthropic" else OpenAIProposer
    proposer = cls(api_key="k" * 20, base_url=url, retry=FAST, timeout=2.0)
    with pytest.raises(ProviderError) as err:
        await proposer.propose(PROMPT)
    assert "hunter2secret" not in str(err.value) and "alice" not in str(err.value)
    assert "127.0.0.1" in str(err.value)
    assert "hunter2secret" not in repr(proposer)


def test_url_credentials_are_redacted_in_text_logs_and_prompts():
    text = "GET https://user:p4ss@host.example/v1 and postgres://admin:pw@db:5432/x ok"
    assert (
        redact_url_credentials(text)
        == "GET https://***@host.example/v1 and postgres://***@db:5432/x ok"
    )
    assert "p4ss" not in redact(text) and "pw@" not in redact(text)
    table = {}
    masked = mask_secrets(text, table)
    assert "p4ss" not in masked and "user:p4ss" in table.values()
    record = logging.LogRecord(
        "heal_ls", logging.INFO, __file__, 1, "base %s", ("http://u:secret9@h",), None
    )
    RedactFilter().filter(record)
    assert record.getMessage() == "base http://***@h"
