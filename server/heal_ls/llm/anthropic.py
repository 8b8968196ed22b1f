"""Claude through the official `anthropic` SDK: Messages API, streamed when chunks are wanted.

Key from ANTHROPIC_API_KEY, endpoint from ANTHROPIC_BASE_URL (or base_url), as the SDK reads them;
make_proposer passes both explicitly so an `env` mapping can stand in for os.environ.
"""

from __future__ import annotations

from collections.abc import Callable

import anthropic as sdk

from heal_ls.llm.base import Proposal
from heal_ls.llm.errors import IncompleteStream
from heal_ls.llm.sdk_proposer import SdkProposer


class AnthropicProposer(SdkProposer):
    name = "anthropic"
    sdk = sdk
    default_url = "https://api.anthropic.com"
    key_env = "ANTHROPIC_API_KEY"
    max_tokens = 4096  # a corrected function, with room for a short explanation

    def _client(self) -> sdk.AsyncAnthropic:
        return sdk.AsyncAnthropic(
            api_key=self.api_key,
            base_url=self.explicit_url or self.default_url,
            timeout=self.timeout,
            max_retries=0,  # retries are ours: bounded, and never after text was streamed
        )

    async def _once(self, prompt, on_chunk: Callable[[str], None] | None) -> Proposal:
        request = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": prompt.system,
            "messages": [{"role": "user", "content": prompt.user}],
        }
        client = self.client()
        if on_chunk is None:
            message = await client.messages.create(**request)
        else:
            async with client.messages.stream(**request) as stream:
                async for text in stream.text_stream:
                    on_chunk(text)
                message = await stream.get_final_message()
            if message.stop_reason is None:  # no message_delta: cut off mid-answer
                raise IncompleteStream()
        text = "".join(b.text for b in message.content if getattr(b, "type", "") == "text")
        usage = message.usage
        return Proposal(text, usage.input_tokens or 0, usage.output_tokens or 0)
