"""The environment a candidate run gets: an allow-list, never the editor's or the model's secrets.

A run of untrusted code sees only the variables a test run needs (PATH, a locale-shaped locale,
Python's and pytest's own, heal-ls's plugin protocol) plus the ones the user passes through
explicitly with `heal.testEnv` / `--test-env` ("NAME" takes the value from our environment,
"NAME=value" sets it).
Variables set by pytest's ini `env` (pytest-env) are set inside the run and need nothing here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from heal_ls.redact import SECRET_NAME
from heal_ls.testing.agent import heal_env

_ALLOWED = re.compile(
    r"^(PATH|TZ|TERM|NO_COLOR|FORCE_COLOR|COLUMNS|LINES"
    r"|PYTHON[A-Z_]*|PYTEST_[A-Z_]+|VIRTUAL_ENV|CONDA_PREFIX"
    r"|OPENBLAS_[A-Z0-9_]+|OMP_NUM_THREADS|MKL_NUM_THREADS|COVERAGE_[A-Z_]+)$"
)
# heal-ls's own variables: exactly those of a run's environment (heal_env), never the rest of
# HEAL_LS_* (a base URL with a password, a cache folder) that configures heal-ls itself.
_OURS = {
    value
    for value in vars(heal_env).values()
    if isinstance(value, str) and value.startswith("HEAL_LS_")
}
# Locale variables pass only with a locale's shape (`en_US.UTF-8`, `C`, `de_DE@euro`): their
# value is otherwise a free channel for anything (LANGUAGE is a `:`-separated list of them).
_LOCALE_NAME = re.compile(r"^(LANG|LANGUAGE|LC_[A-Z]+)$")
_LOCALE = r"(?:C|POSIX|[A-Za-z]{2,3}(?:_[A-Za-z]{2,3})?)(?:\.[A-Za-z0-9_-]{1,20})?(?:@[A-Za-z0-9_]{1,20})?"
_LOCALE_VALUE = re.compile(rf"^{_LOCALE}(?::{_LOCALE})*$")
# A SECRET_NAME (the masking's own pattern) never passes implicitly, even when an allowed
# prefix matches (PYTHON_API_KEY, PYTEST_TOKEN...).
# Python start-up hooks that would run code of the user's choice before our plugin; harmless in
# the sandbox but they can read files we never meant to expose, so they pass only explicitly.
_DROPPED = {"PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONBREAKPOINT"}


def scrub(
    env: Mapping[str, str], passthrough: Iterable[str] = (), source: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The allow-listed part of env, plus the explicit pass-through entries.

    source: where a bare "NAME" takes its value from (default: env itself).
    """
    kept = {name: value for name, value in env.items() if _allowed(name, value)}
    source = env if source is None else source
    for entry in passthrough:
        name, sep, value = str(entry).partition("=")
        name = name.strip()
        if not name:
            continue
        if sep:
            kept[name] = value
        elif name in source:
            kept[name] = source[name]
    return kept


def _allowed(name: str, value: str) -> bool:
    if name in _OURS:
        return True
    if _LOCALE_NAME.match(name):
        return bool(_LOCALE_VALUE.match(value))
    return bool(_ALLOWED.match(name)) and not SECRET_NAME.search(name) and name not in _DROPPED
