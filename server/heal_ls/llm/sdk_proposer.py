"""Shared plumbing for the SDK-backed proposers: configuration, retries, chunk relay."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import ModuleType
from typing import Any

from heal_ls.llm.base import DEFAULT_MODELS, PLACEHOLDER_KEY, ConfigError, Proposal, ProviderError
from heal_ls.llm.errors import AnswerTooLarge, CallError, call_error_from, describe
from heal_ls.llm.retry import RetryPolicy, call_with_retries
from heal_ls.redact import redact_url_credentials

IDLE_TIMEOUT = 30.0  # seconds one network read may wait (connect, first byte, each chunk)
REQUEST_TIMEOUT = 60.0  # seconds for one heal step's model call, retries included
MAX_ANSWER_CHARS = 100_000  # a corrected function is a few KB; a bigger answer is not one


class SdkProposer:
    """Subclasses set name, sdk, default_url and key_env, and implement _once()."""

    name = "?"
    sdk: ModuleType
    default_url = ""
    key_env = ""

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = IDLE_TIMEOUT,
        retry: RetryPolicy | None = None,
        stream: bool | None = None,
        request_timeout: float = REQUEST_TIMEOUT,
        max_answer: int = MAX_ANSWER_CHARS,
    ):
        if not api_key and not base_url:
            raise ConfigError(
                f"{self.name}: no API key; set {self.key_env} (or a base URL for a local server)"
            )
        self.model = model or DEFAULT_MODELS[self.name]
        self.api_key = api_key or PLACEHOLDER_KEY
        self.base_url = base_url or self.default_url
        self.explicit_url = base_url
        # The whole step, retries included: a silent or trickling server costs at most this.
        self.request_timeout = request_timeout
        # Per network read (connect, first byte, each streamed chunk): a dead server or a
        # stalled stream is noticed without waiting for the whole step.
        self.timeout = min(timeout, request_timeout)
        self.max_answer = max_answer
        self.retry = retry or RetryPolicy()
        self.stream = stream  # None: stream exactly when someone listens to chunks
        self._clients: dict[asyncio.AbstractEventLoop, Any] = {}  # the SDK's async client

    def __repr__(self) -> str:  # never show the key, nor credentials inside the URL
        url = redact_url_credentials(self.base_url)
        return f"{type(self).__name__}(model={self.model!r}, base_url={url!r})"

    async def propose(self, prompt, on_chunk: Callable[[str], None] | None = None) -> Proposal:
        relayed: list[str] = []
        size = 0

        def relay(text: str) -> None:
            nonlocal size
            size += len(text)
            if size > self.max_answer:  # stop reading: the exception closes the stream
                raise AnswerTooLarge(self.max_answer)
            relayed.append(text)
            if on_chunk is not None:
                on_chunk(text)

        async def once() -> Proposal:
            nonlocal size
            size = 0
            proposal = await self._once(prompt, relay if stream else None)
            if len(proposal.text) > self.max_answer:  # not streamed: checked once it is read
                raise AnswerTooLarge(self.max_answer)
            return proposal

        stream = self.stream if self.stream is not None else on_chunk is not None
        try:
            proposal = await asyncio.wait_for(
                call_with_retries(
                    once,
                    self._to_error,
                    self._give_up,
                    self.retry,
                    may_retry=lambda: not relayed,  # never send the same text twice to a listener
                ),
                self.request_timeout,
            )
        except asyncio.TimeoutError:
            slow = CallError("slow", detail=f"took longer than {self.request_timeout:g}s")
            raise self._give_up(slow, 1) from None
        # Secrets were masked in the prompt; an answer that echoes a placeholder gets them back.
        if hasattr(prompt, "unmask"):
            proposal.text = prompt.unmask(proposal.text)
        return proposal

    async def _once(self, prompt, on_chunk: Callable[[str], None] | None) -> Proposal:
        raise NotImplementedError

    def _client(self):
        raise NotImplementedError

    def client(self):
        """One SDK client per event loop, shared by this proposer's calls: making a client
        (its HTTP pool and TLS context) costs more CPU than a whole answer from a local model."""
        loop = asyncio.get_running_loop()
        if loop not in self._clients:
            self._clients = {loop: self._client()}  # a pool never outlives its loop's use
        return self._clients[loop]

    async def aclose(self) -> None:
        clients, self._clients = self._clients, {}
        for loop, client in clients.items():
            if loop is asyncio.get_running_loop():
                await client.close()

    def _to_error(self, exc: BaseException) -> CallError | None:
        return call_error_from(exc, self.sdk, secrets=[self.api_key])

    def _give_up(self, err: CallError, attempts: int) -> ProviderError:
        line = describe(
            self.name,
            err,
            model=self.model,
            base_url=redact_url_credentials(self.base_url),
            attempts=attempts,
            timeout=self.timeout,
        )
        if err.status == 401:
            line += f"; check {self.key_env}"
        return ProviderError(line)
