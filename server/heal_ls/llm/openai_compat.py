"""OpenAI and any OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio, OpenRouter)
through the official `openai` SDK's Chat Completions API, streamed when chunks are wanted.

Key from OPENAI_API_KEY; endpoint from base_url or OPENAI_BASE_URL. A local server without a key
gets a placeholder key, since the SDK insists on one.
"""

from __future__ import annotations

from collections.abc import Callable

import openai as sdk

from heal_ls.llm.base import Proposal
from heal_ls.llm.errors import IncompleteStream
from heal_ls.llm.sdk_proposer import SdkProposer


class OpenAIProposer(SdkProposer):
    name = "openai"
    sdk = sdk
    default_url = "https://api.openai.com/v1"
    key_env = "OPENAI_API_KEY"
    # Ask for token usage in the stream; servers that reject the field are remembered.
    stream_usage = True

    def _client(self) -> sdk.AsyncOpenAI:
        return sdk.AsyncOpenAI(
            api_key=self.api_key,
            base_url=self.explicit_url or self.default_url,
            timeout=self.timeout,
            max_retries=0,
        )

    async def _once(self, prompt, on_chunk: Callable[[str], None] | None) -> Proposal:
        messages = [
            {"role": "system", "content": prompt.system},
            {"role": "user", "content": prompt.user},
        ]
        client = self.client()
        if on_chunk is None:
            done = await client.chat.completions.create(model=self.model, messages=messages)
            usage = done.usage
            text = (done.choices[0].message.content or "") if done.choices else ""
            return Proposal(text, *_tokens(usage))
        try:
            return await self._stream(client, messages, on_chunk)
        except sdk.BadRequestError as exc:
            if not self.stream_usage or "stream_options" not in str(exc):
                raise
            self.stream_usage = False  # an older compatible server: stream without usage
            return await self._stream(client, messages, on_chunk)

    async def _stream(self, client, messages, on_chunk: Callable[[str], None]) -> Proposal:
        extra = {"stream_options": {"include_usage": True}} if self.stream_usage else {}
        stream = await client.chat.completions.create(
            model=self.model, messages=messages, stream=True, **extra
        )
        parts: list[str] = []
        usage = finished = None
        async with stream:  # closes the HTTP response on cancellation too
            async for chunk in stream:
                usage = chunk.usage or usage
                for choice in chunk.choices:
                    finished = choice.finish_reason or finished
                    if choice.delta and choice.delta.content:
                        parts.append(choice.delta.content)
                        on_chunk(choice.delta.content)
        if finished is None:  # no finish_reason: the server hung up mid-answer
            raise IncompleteStream()
        return Proposal("".join(parts), *_tokens(usage))


def _tokens(usage) -> tuple[int, int]:
    if usage is None:
        return 0, 0
    return usage.prompt_tokens or 0, usage.completion_tokens or 0
