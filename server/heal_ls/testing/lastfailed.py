"""pytest's own record of the tests that failed in the user's last runs (cacheprovider's
`.pytest_cache/v/cache/lastfailed`, a JSON object of nodeid -> true), read without pytest."""

from __future__ import annotations

import json
import os

LASTFAILED = os.path.join(".pytest_cache", "v", "cache", "lastfailed")


def lastfailed_path(root: str) -> str:
    return os.path.join(root, LASTFAILED)


def read_lastfailed(root: str) -> list[str] | None:
    """The nodeids pytest last saw failing in `root` (sorted), or None when there is no
    readable cache. A half-written or odd file reads as None: the next change brings it."""
    try:
        with open(lastfailed_path(root), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    return sorted(nodeid for nodeid, failed in data.items() if isinstance(nodeid, str) and failed)
