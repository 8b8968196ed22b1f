"""Settings: the `heal` section from initializationOptions and workspace/configuration.

The defaults are written once, in client-vscode/package.json (contributes.configuration); the
names and defaults here mirror it and tests/lsp/test_config.py keeps the two in step. Invalid
values never crash the server: they fall back to the default with a message for the user.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from heal_ls.heal.config import HealConfig
from heal_ls.llm import PROVIDERS
from heal_ls.testing.options import RunOptions

ENGINE = HealConfig()  # where a setting is an engine option, its default is the engine's


@dataclass
class Settings:
    provider: str = ENGINE.provider
    model: str | None = None
    baseUrl: str | None = None  # noqa: N815 - camelCase: the client's names
    maxAttempts: int = ENGINE.max_attempts  # noqa: N815
    candidates: int = ENGINE.candidates
    python: str | None = None
    pytestArgs: list[str] = field(default_factory=list)  # noqa: N815
    testTimeout: float = ENGINE.test_timeout  # noqa: N815
    requestTimeout: float = ENGINE.request_timeout  # noqa: N815
    localBudget: int = ENGINE.local_budget_count  # noqa: N815
    localSeconds: float = ENGINE.local_budget_seconds  # noqa: N815
    useCache: bool = ENGINE.use_cache  # noqa: N815
    maxNodes: int = ENGINE.max_nodes  # noqa: N815
    allowImports: bool = ENGINE.allow_imports  # noqa: N815
    autoVerifyOnSave: bool = True  # noqa: N815
    runOnStartup: bool = False  # noqa: N815
    followPytestRuns: bool = True  # noqa: N815
    flakyRuns: int = ENGINE.flaky_runs  # noqa: N815 - at most; stops at the first pass (testing/flaky.py)
    maxTokensPerHeal: int = 0  # noqa: N815 - 0: no cap
    prices: dict[str, dict[str, float]] = field(
        default_factory=dict
    )  # model -> {input, output} USD per 1M tokens
    previewAboveCallers: int = 10  # noqa: N815
    testEnv: list[str] = field(default_factory=list)  # noqa: N815
    allowUnisolated: bool = ENGINE.allow_unisolated  # noqa: N815
    verifySeconds: float = ENGINE.verify_seconds  # noqa: N815 - per candidate (0: every guard)


def _optional_str(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _int_between(low: int, high: int) -> Callable[[Any], bool]:
    def check(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high

    return check


def _positive_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


VALIDATORS: dict[str, Callable[[Any], bool]] = {
    "provider": lambda v: v in PROVIDERS,
    "model": _optional_str,
    "baseUrl": _optional_str,
    "maxAttempts": _int_between(1, 50),
    "candidates": _int_between(1, 20),
    "python": _optional_str,
    "pytestArgs": lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v),
    "testTimeout": _positive_number,
    "verifySeconds": lambda v: _positive_number(v) or v == 0,
    "requestTimeout": _positive_number,
    "localBudget": _int_between(1, 100_000),
    "localSeconds": _positive_number,
    "useCache": lambda v: isinstance(v, bool),
    "maxNodes": _int_between(1, 20),
    "allowImports": lambda v: isinstance(v, bool),
    "autoVerifyOnSave": lambda v: isinstance(v, bool),
    "runOnStartup": lambda v: isinstance(v, bool),
    "followPytestRuns": lambda v: isinstance(v, bool),
    "flakyRuns": _int_between(0, 20),
    "maxTokensPerHeal": _int_between(0, 100_000_000),
    "prices": lambda v: (
        isinstance(v, dict)
        and all(
            isinstance(p, dict) and all(_positive_number(x) or x == 0 for x in p.values())
            for p in v.values()
        )
    ),
    "previewAboveCallers": _int_between(0, 1_000_000),
    "testEnv": lambda v: isinstance(v, list) and all(isinstance(a, str) and a for a in v),
    "allowUnisolated": lambda v: isinstance(v, bool),
}


def section_of(raw: Any) -> dict[str, Any]:
    """Accept {"heal": {...}} or the bare section; anything else is an empty section."""
    section = raw.get("heal") if isinstance(raw, dict) else None
    if isinstance(section, dict):
        return section
    if isinstance(raw, dict) and "heal" not in raw:
        return raw
    return {}


def parse_settings(raw: Any) -> tuple[Settings, list[str]]:
    """Return the settings and one line per rejected value (which keeps its default)."""
    section = section_of(raw)
    settings, problems = Settings(), []
    for f in fields(Settings):
        if f.name not in section:
            continue
        value = section[f.name]
        if value == "" and f.name in ("model", "baseUrl", "python"):
            value = None  # an emptied text box means "not set"
        if VALIDATORS[f.name](value):
            setattr(settings, f.name, float(value) if f.type == "float" else value)
        else:
            default = getattr(Settings(), f.name)
            problems.append(f"heal.{f.name}: invalid value {value!r}, using {default!r}")
    return settings, problems


def heal_config(settings: Settings) -> HealConfig:
    """The engine's HealConfig for these settings (heal/config.py SOURCES maps the names)."""
    return HealConfig.from_settings(settings)


def run_options(settings: Settings, **changes: Any) -> RunOptions:
    """A run of the folder's tests as its settings say: the interpreter, pytest arguments and
    per-test timeout by the one mapping (`heal_config(...).run_options`), with `changes` for
    the run at hand (overlay, warm runner, own cache...)."""
    return heal_config(settings).run_options(**changes)
