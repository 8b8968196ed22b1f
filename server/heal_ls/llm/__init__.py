"""Model proposers. `make_proposer` picks and configures one; see base.py for the protocol.

Providers:
  anthropic  Claude via the official SDK; ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL
  openai     OpenAI or any OpenAI-compatible server; OPENAI_API_KEY, OPENAI_BASE_URL / base_url
  local      the built-in repairer (no model, no network, no key)
  auto       anthropic if ANTHROPIC_API_KEY is set (and no base_url was given), else openai if
             OPENAI_API_KEY, OPENAI_BASE_URL or base_url is set, else local
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from heal_ls.llm.base import (
    BASE_URL_ENV,
    DEFAULT_MODELS,
    KEY_ENV,
    ConfigError,
    Proposal,
    Proposer,
    ProviderError,
)

PROVIDERS = ("auto", "anthropic", "openai", "local")

__all__ = [
    "DEFAULT_MODELS",
    "PROVIDERS",
    "ConfigError",
    "Proposal",
    "Proposer",
    "ProviderError",
    "choose_provider",
    "make_proposer",
]


def choose_provider(
    provider: str = "auto", base_url: str | None = None, env: Mapping[str, str] | None = None
) -> str:
    """The concrete provider name `auto` resolves to (others are returned as given)."""
    env = os.environ if env is None else env
    if provider not in PROVIDERS:
        raise ConfigError(f"unknown provider {provider!r}; choose one of {', '.join(PROVIDERS)}")
    if provider != "auto":
        return provider
    # An explicit base URL is a local or proxy server, and those speak the OpenAI format.
    if env.get(KEY_ENV["anthropic"]) and not base_url:
        return "anthropic"
    if env.get(KEY_ENV["openai"]) or env.get(BASE_URL_ENV["openai"]) or base_url:
        return "openai"
    return "local"


def make_proposer(
    provider: str = "auto",
    model: str | None = None,
    base_url: str | None = None,
    env: Mapping[str, str] | None = None,
    **options,
):
    """A configured proposer. options (timeout, retry, stream) go to the SDK proposers.

    Raises ConfigError for an unknown provider or a provider without key or endpoint."""
    env = os.environ if env is None else env
    name = choose_provider(provider, base_url, env)
    if name == "local":
        # lazy: the local repairer adds 12 ms of CPU to every command that reads heal-ls's config
        # (heal/config.py loads this package): `import heal_ls.cli` 31 ms without it, 43 with
        from heal_ls.repair.local import LocalRepairer

        return LocalRepairer()
    url = base_url or env.get(BASE_URL_ENV[name]) or None
    key = env.get(KEY_ENV[name]) or None
    if name == "anthropic":
        # lazy: the anthropic SDK takes 1.5 s of CPU to import, only when that provider is used
        from heal_ls.llm.anthropic import AnthropicProposer

        return AnthropicProposer(model, api_key=key, base_url=url, **options)
    # lazy: the openai SDK takes 0.7 s of CPU to import, only when that provider is used
    from heal_ls.llm.openai_compat import OpenAIProposer

    return OpenAIProposer(model, api_key=key, base_url=url, **options)
