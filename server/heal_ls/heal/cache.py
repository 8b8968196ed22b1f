"""Repair cache: a previously verified fix for the same function and failure, with no model call.

Keyed on the function's source hash + a normalised failure signature + provider/model. A hit is
only a candidate: the loop re-verifies it before use, so a stale entry can never be applied blind.
A fix the local repairer found keeps its rank (local edit #N), so a later heal uses it only when
its own local budget would have reached that edit (heal/steps.py).
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from heal_ls.cache_folder import cache_dir
from heal_ls.models import Failure

_VOLATILE = re.compile(r"0x[0-9a-fA-F]+|\b\d+(\.\d+)?\b")


def failure_signature(failure: Failure) -> str:
    """Exception type + message with addresses and numbers blanked, + the test id."""
    message = _VOLATILE.sub("#", failure.message)[:300]
    return f"{failure.test or failure.script or failure.id}|{failure.exc_type}|{message}"


def cache_key(function_source: str, failure: Failure, provider: str, model: str) -> str:
    raw = "\0".join([function_source, failure_signature(failure), provider, model])
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class CachedFix:
    fixed: str  # the verified answer (a def, or a plan of several nodes)
    local_rank: int | None  # N when the local repairer found it as local edit #N; None: a model


class RepairCache:
    def __init__(self, path: Path | None = None):
        self.path = path or cache_dir() / "repairs.sqlite3"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with self._connect() as db:
                db.execute(
                    "CREATE TABLE IF NOT EXISTS repairs"
                    " (key TEXT PRIMARY KEY, fixed TEXT, created REAL, local_rank INTEGER)"
                )
                columns = {row[1] for row in db.execute("PRAGMA table_info(repairs)")}
                if "local_rank" not in columns:  # a cache written before ranks were kept
                    db.execute("ALTER TABLE repairs ADD COLUMN local_rank INTEGER")
        except sqlite3.Error:
            pass  # a broken cache must never break a heal: every get is then a miss

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=5)

    def get(self, key: str) -> CachedFix | None:
        try:
            with self._connect() as db:
                query = "SELECT fixed, local_rank FROM repairs WHERE key = ?"
                row = db.execute(query, (key,)).fetchone()
        except sqlite3.Error:
            return None  # a broken cache must never break a heal
        return CachedFix(row[0], row[1]) if row else None

    def put(self, key: str, fixed_function: str, local_rank: int | None = None) -> None:
        try:
            with self._connect() as db:
                db.execute(
                    "INSERT OR REPLACE INTO repairs (key, fixed, created, local_rank)"
                    " VALUES (?, ?, ?, ?)",
                    (key, fixed_function, time.time(), local_rank),
                )
        except sqlite3.Error:
            pass
