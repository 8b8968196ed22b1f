"""Shared plumbing for the SDK-backed proposers: configuration, retries, chunk relay."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import ModuleType

from heal_ls.llm.base import DEFAULT_MODELS, PLACEHOLDER_KEY, ConfigError, Proposal, ProviderError
from heal_ls.llm.errors import CallError, call_error_from, describe
from heal_ls.llm.retry import RetryPolicy, call_with_retries


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
        timeout: float = 120.0,
        retry: RetryPolicy | None = None,
        stream: bool | None = None,
        answer_timeout: float | None = None,
    ):
        if not api_key and not base_url:
            raise ConfigError(
                f"{self.name}: no API key; set {self.key_env} (or a base URL for a local server)"
            )
        self.model = model or DEFAULT_MODELS[self.name]
        self.api_key = api_key or PLACEHOLDER_KEY
        self.base_url = base_url or self.default_url
        self.explicit_url = base_url
        self.timeout = timeout  # per network read: catches a dead server or a stalled stream
        # the whole answer: catches a server that trickles tokens forever
        self.answer_timeout = answer_timeout or max(4 * timeout, 60.0)
        self.retry = retry or RetryPolicy()
        self.stream = stream  # None: stream exactly when someone listens to chunks
        self._clients: dict[asyncio.AbstractEventLoop, object] = {}

    def __repr__(self) -> str:  # never show the key
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"

    async def propose(self, prompt, on_chunk: Callable[[str], None] | None = None) -> Proposal:
        relayed: list[str] = []

        def relay(text: str) -> None:
            relayed.append(text)
            if on_chunk is not None:
                on_chunk(text)

        stream = self.stream if self.stream is not None else on_chunk is not None
        proposal = await call_with_retries(
            lambda: asyncio.wait_for(
                self._once(prompt, relay if stream else None), self.answer_timeout
            ),
            self._to_error,
            self._give_up,
            self.retry,
            may_retry=lambda: not relayed,  # never send the same text twice to a listener
        )
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
        err = call_error_from(exc, self.sdk, secrets=[self.api_key])
        if err is None and isinstance(exc, asyncio.TimeoutError):  # from wait_for above
            err = CallError("slow", detail=f"took longer than {self.answer_timeout:g}s")
        return err

    def _give_up(self, err: CallError, attempts: int) -> ProviderError:
        line = describe(
            self.name,
            err,
            model=self.model,
            base_url=self.base_url,
            attempts=attempts,
            timeout=self.timeout,
        )
        if err.status == 401:
            line += f"; check {self.key_env}"
        return ProviderError(line)
