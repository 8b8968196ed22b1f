"""What every model proposer offers: one async call from a Prompt to a Proposal.

The heal loop only sees this protocol; the SDK details live in anthropic.py and openai_compat.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from heal_ls.redact import unmask

# Current default models per provider, overridable with --model / the `heal.model` setting.
# Both appear in the installed SDKs' model lists and neither is deprecated there
# (tests/unit/test_llm_config.py checks that, so an SDK upgrade flags a stale default).
DEFAULT_MODELS = {
    "anthropic": "claude-sonnet-5-5",
    "openai": "gpt-5.4-mini",
    "local": "local",
}
KEY_ENV = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
BASE_URL_ENV = {"anthropic": "ANTHROPIC_BASE_URL", "openai": "OPENAI_BASE_URL"}
# Local servers (Ollama, vLLM, llama.cpp...) ignore the key, but the SDKs insist on one.
PLACEHOLDER_KEY = "not-needed"


@dataclass
class Proposal:
    """A model's raw answer (prose, fences and all) and what it cost."""

    text: str
    input_tokens: int = 0
    output_tokens: int = 0


class Proposer(Protocol):
    name: str
    model: str

    async def propose(
        self, prompt: Prompt, on_chunk: Callable[[str], None] | None = None
    ) -> Proposal: ...


class ProviderError(Exception):
    """The provider could not answer; the message is one clear line and never holds a key."""


class ConfigError(Exception):
    """The provider is not configured (no key, unknown provider name...)."""


@dataclass
class Prompt:
    system: str
    user: str
    # placeholder -> original value for every secret masked out of the prompt
    masks: dict[str, str] = field(default_factory=dict)

    def unmask(self, answer: str) -> str:
        """The answer with masked secrets given back their original values."""
        return unmask(answer, self.masks)
