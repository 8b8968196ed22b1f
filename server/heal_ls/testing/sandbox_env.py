"""The environment a candidate run gets: an allow-list, never the editor's or the model's secrets.

A run of untrusted code sees only the variables a test run needs (PATH, locale, Python's and
pytest's own, heal-ls's plugin variables) plus the ones the user passes through explicitly with
`heal.testEnv` / `--test-env` ("NAME" takes the value from our environment, "NAME=value" sets it).
Variables set by pytest's ini `env` (pytest-env) are set inside the run and need nothing here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

_ALLOWED = re.compile(
    r"^(PATH|LANG|LANGUAGE|LC_[A-Z]+|TZ|TERM|NO_COLOR|FORCE_COLOR|COLUMNS|LINES"
    r"|PYTHON[A-Z_]*|PYTEST_[A-Z_]+|HEAL_LS_[A-Z_]+|VIRTUAL_ENV|CONDA_PREFIX"
    r"|OPENBLAS_[A-Z0-9_]+|OMP_NUM_THREADS|MKL_NUM_THREADS|COVERAGE_[A-Z_]+)$"
)
# Never passed implicitly, even when an allowed prefix matches (PYTHON_API_KEY, PYTEST_TOKEN...).
_SECRET = re.compile(r"(KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION)", re.IGNORECASE)
# Python start-up hooks that would run code of the user's choice before our plugin; harmless in
# the sandbox but they can read files we never meant to expose, so they pass only explicitly.
_DROPPED = {"PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONBREAKPOINT"}


def scrub(env: Mapping[str, str], passthrough: Iterable[str] = (), source=None) -> dict[str, str]:
    """The allow-listed part of env, plus the explicit pass-through entries.

    source: where a bare "NAME" takes its value from (default: env itself).
    """
    kept = {
        name: value
        for name, value in env.items()
        if _ALLOWED.match(name) and not _SECRET.search(name) and name not in _DROPPED
    }
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
