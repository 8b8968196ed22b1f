"""Repair cache: a previously verified fix for the same function and failure, with no model call.

Keyed on the function's source hash + a normalised failure signature + provider/model. A hit is
only a candidate: the loop re-verifies it before use, so a stale entry can never be applied blind.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import time
from pathlib import Path

from heal_ls.models import Failure

_VOLATILE = re.compile(r"0x[0-9a-fA-F]+|\b\d+(\.\d+)?\b")


def cache_dir() -> Path:
    override = os.environ.get("HEAL_LS_CACHE_DIR")
    if override:
        return Path(override)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("heal-ls"))


def failure_signature(failure: Failure) -> str:
    """Exception type + message with addresses and numbers blanked, + the test id."""
    message = _VOLATILE.sub("#", failure.message)[:300]
    return f"{failure.test or failure.script or failure.id}|{failure.exc_type}|{message}"


def cache_key(function_source: str, failure: Failure, provider: str, model: str) -> str:
    raw = "\0".join([function_source, failure_signature(failure), provider, model])
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


class RepairCache:
    def __init__(self, path: Path | None = None):
        self.path = path or cache_dir() / "repairs.sqlite3"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS repairs (key TEXT PRIMARY KEY, fixed TEXT, created REAL)"
            )

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=5)

    def get(self, key: str) -> str | None:
        try:
            with self._connect() as db:
                row = db.execute("SELECT fixed FROM repairs WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:
            return None  # a broken cache must never break a heal
        return row[0] if row else None

    def put(self, key: str, fixed_function: str) -> None:
        try:
            with self._connect() as db:
                db.execute(
                    "INSERT OR REPLACE INTO repairs VALUES (?, ?, ?)",
                    (key, fixed_function, time.time()),
                )
        except sqlite3.Error:
            pass
