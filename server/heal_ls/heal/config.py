"""How a heal is configured (HealConfig: provider, budgets, runner settings), in one
place read by the CLI, the bench and the language server; `provider_for` resolves `auto`."""

from __future__ import annotations

from dataclasses import dataclass

from heal_ls.heal.guard_budget import DEFAULT_SECONDS


@dataclass
class HealConfig:
    provider: str = "auto"
    model: str | None = None
    base_url: str | None = None
    max_attempts: int = 3
    candidates: int = 1
    python: str | None = None
    pytest_args: tuple[str, ...] = ()
    test_timeout: float = 10.0
    request_timeout: float = 60.0  # seconds per model call (one heal step), retries included
    local_budget_count: int = 300
    local_budget_seconds: float = 60.0
    local_first_count: int = 40  # in auto mode with a key: a cheap local try before the model
    allow_test_edits: bool = False
    max_nodes: int = 3  # functions of the target's module a model answer may change
    allow_imports: bool = True  # a model answer may add the imports its fix needs
    use_cache: bool = True
    warm: bool = True
    max_tokens: int = 0  # tokens (in + out) one heal may spend; 0 = no cap
    prices: dict | None = None  # per-model price overrides (heal/budget.py)
    test_env: tuple[str, ...] = ()  # variables passed into the sandbox: "NAME" or "NAME=value"
    allow_unisolated: bool = False  # run candidates even where no sandbox works (warned)
    verify_seconds: float = (
        DEFAULT_SECONDS  # guard time per verification, nearest first (0: no limit)
    )


def provider_for(config: HealConfig) -> str:
    """The provider `auto` resolves to (anthropic with its key, else openai, else local)."""
    from heal_ls.llm import choose_provider

    return choose_provider(config.provider, config.base_url)
