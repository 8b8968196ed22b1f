"""heal-ls's cache folder: `HEAL_LS_CACHE_DIR` (tests set it), else the platform's user cache.

The impact maps (impact/schema.py), the repair cache (heal/cache.py) and the instrumented
modules' code (the traced runs' `HEAL_LS_HITS_CACHE`, testing/invocation.py) live there. A module of its own, without sqlite:
`heal-ls check` names the folder in its first run's environment before it spawns pytest."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_cache_dir


def cache_dir() -> Path:
    """heal-ls's cache folder: HEAL_LS_CACHE_DIR (tests set it), else the user cache."""
    override = os.environ.get("HEAL_LS_CACHE_DIR")
    if override:
        return Path(override)
    return Path(user_cache_dir("heal-ls", appauthor=False))
