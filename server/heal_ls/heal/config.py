"""How a heal is configured (HealConfig: provider, budgets, runner settings), in one
place read by the CLI, the bench and the language server; `provider_for` resolves `auto`.

SOURCES is the one mapping from the editor's settings (`heal.*`) and the command line's flags
to HealConfig: `HealConfig.from_settings(settings)` and `HealConfig.from_flags(args)` both read it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from heal_ls.heal.guard_budget import DEFAULT_SECONDS
from heal_ls.llm import choose_provider
from heal_ls.testing.options import FULL_RERUNS, RunOptions
from heal_ls.testing.sandbox_policy import SandboxPolicy


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
    prices: dict[str, dict[str, float]] | None = None  # per-model price overrides (heal/budget.py)
    test_env: tuple[str, ...] = ()  # variables passed into the sandbox: "NAME" or "NAME=value"
    allow_unisolated: bool = False  # run candidates even where no sandbox works (warned)
    verify_seconds: float = (
        DEFAULT_SECONDS  # guard time per verification, nearest first (0: no limit)
    )
    flaky_runs: int = FULL_RERUNS  # re-runs of a failing test before a heal, at most (0: none)

    def __post_init__(self) -> None:
        self.pytest_args = tuple(self.pytest_args)
        self.test_env = tuple(self.test_env)
        self.max_tokens = max(0, self.max_tokens)  # a negative cap means no cap, as 0 does
        self.verify_seconds = max(0.0, self.verify_seconds)
        self.prices = self.prices or None  # the editor's default is {}: no override

    @classmethod
    def from_settings(cls, settings: object, **fixed: Any) -> HealConfig:
        """The config for the editor's settings (an lsp/workspace/config.Settings, its
        attributes by their camelCase names)."""
        return cls(**_read(lambda name: getattr(settings, name, None), "setting"), **fixed)

    @classmethod
    def from_flags(cls, args: argparse.Namespace, **fixed: Any) -> HealConfig:
        """The config for a command's parsed flags (`--no-X` flags negated); an option the
        command has no flag for keeps its default, or the value in `fixed`."""
        return cls(**_read(lambda dest: getattr(args, dest, None), "flag"), **fixed)

    def run_options(self, **changes: Any) -> RunOptions:
        """The heal's test runs: its interpreter, pytest arguments and per-test timeout, and
        `changes` (overlay, warm runner, sandbox...) for the run at hand."""
        mine = {"python": self.python, "pytest_args": self.pytest_args}
        return RunOptions(**{**mine, "test_timeout": self.test_timeout, **changes})

    @property
    def sandbox(self) -> SandboxPolicy:
        """The sandbox candidates run in: the user's variables, whether unisolated runs may go."""
        return SandboxPolicy(self.test_env, self.allow_unisolated)


# Each HealConfig option's editor setting (heal.<name>) and command-line flag, where it has one.
# A `--no-X` flag sets the option to the flag's opposite.
SOURCES: dict[str, tuple[str | None, str | None]] = {
    "provider": ("provider", "--provider"),
    "model": ("model", "--model"),
    "base_url": ("baseUrl", "--base-url"),
    "max_attempts": ("maxAttempts", "--max-attempts"),
    "candidates": ("candidates", "--candidates"),
    "python": ("python", "--python"),
    "pytest_args": ("pytestArgs", "--pytest-args"),
    "test_timeout": ("testTimeout", "--test-timeout"),
    "request_timeout": ("requestTimeout", "--timeout"),
    "local_budget_count": ("localBudget", "--local-budget"),
    "local_budget_seconds": ("localSeconds", "--local-seconds"),
    "allow_test_edits": (None, "--allow-test-edits"),
    "max_nodes": ("maxNodes", "--max-nodes"),
    "allow_imports": ("allowImports", "--no-imports"),
    "use_cache": ("useCache", "--no-cache"),
    "max_tokens": ("maxTokensPerHeal", "--max-tokens"),
    "prices": ("prices", None),
    "test_env": ("testEnv", "--test-env"),
    "allow_unisolated": ("allowUnisolated", "--allow-unisolated"),
    "verify_seconds": ("verifySeconds", "--verify-seconds"),
    "flaky_runs": ("flakyRuns", "--flaky-runs"),
}


def flag_dest(flag: str) -> str:
    """argparse's attribute for a flag: `--local-budget` -> `local_budget`."""
    return flag.lstrip("-").replace("-", "_")


def _read(get: Callable[[str], Any], column: Literal["setting", "flag"]) -> dict[str, Any]:
    """HealConfig's keywords from `get(name)` (None: not given, the default stays)."""
    values = {}
    for option, (setting, flag) in SOURCES.items():
        name = setting if column == "setting" else flag
        if name is None:
            continue
        value = get(flag_dest(name) if column == "flag" else name)
        if value is None:
            continue
        values[option] = (not value) if column == "flag" and name.startswith("--no-") else value
    return values


def provider_for(config: HealConfig) -> str:
    """The provider `auto` resolves to (anthropic with its key, else openai, else local)."""
    return choose_provider(config.provider, config.base_url)
