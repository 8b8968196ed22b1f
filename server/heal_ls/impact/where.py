"""Where a project's impact map lives, and which runs take their test files whole: what
`heal-ls check` asks before its first run is spawned (testing/vouch.py), so without sqlite3.

The map is a file in heal-ls's cache folder (`HEAL_LS_CACHE_DIR`, else the platform's user
cache), named by a hash of the project root and the interpreter that runs its tests: two venvs
of one project are two maps.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from heal_ls.cache_folder import cache_dir

# pytest options after which a run may not have run every test of the files it names
SELECTING = ("-k", "-m", "--lf", "--last-failed", "--sw", "--stepwise", "-x", "--exitfirst")
SELECTING_PREFIXES = ("--maxfail", "--deselect", "--ignore", "-k", "-m", "--sw-skip")


def interpreter_path(python: str | None) -> str:
    """The interpreter as a stable path (not resolved: a venv's python is its own project)."""
    python = python or sys.executable
    found = shutil.which(python) if os.sep not in python else python
    return os.path.abspath(found or python)


def map_path(root: str, python: str | None) -> Path:
    key = f"{os.path.abspath(root)}\0{interpreter_path(python)}"
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    name = os.path.basename(os.path.abspath(root)) or "root"
    return cache_dir() / "impact" / f"{name}-{digest}.sqlite"


def selects(pytest_args: Sequence[str]) -> bool:
    """Do these options make pytest run fewer than all the tests of the files named?"""
    return any(a in SELECTING or a.startswith(SELECTING_PREFIXES) for a in pytest_args)
