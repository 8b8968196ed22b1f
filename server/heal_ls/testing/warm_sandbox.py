"""Sandbox limits applied inside a warm child: rlimits, and no network where the OS allows it.

The counterpart of heal_ls.testing.sandbox for forked runs (the temp HOME comes with the run's
environment). Network isolation enters a new user + network namespace, as `unshare -rn` does;
the forked child is single-threaded, which unshare(CLONE_NEWUSER) requires. Stdlib only.
"""

from __future__ import annotations

import os
import sys

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000


def apply(spec: dict | None) -> bool:
    """Apply {"memory": bytes, "cpu_seconds": n, "network": bool}; True if the network is gone."""
    if not spec:
        return False
    _limit("RLIMIT_AS", spec.get("memory"))
    _limit("RLIMIT_CPU", spec.get("cpu_seconds"))
    return bool(spec.get("network")) and _drop_network()


def _limit(name: str, value) -> None:
    try:
        import resource
    except ImportError:
        return
    if not value or not hasattr(resource, name):
        return
    limit = getattr(resource, name)
    try:
        soft, hard = resource.getrlimit(limit)
        cap = int(value) if hard == resource.RLIM_INFINITY else min(int(value), hard)
        resource.setrlimit(limit, (cap, hard))
    except (ValueError, OSError):
        pass


def _drop_network() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        uid, gid = os.getuid(), os.getgid()
        if libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0:
            return False
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
        return True
    except (OSError, AttributeError):
        return False


def _write(path: str, text: str) -> None:
    with open(path, "w") as file:
        file.write(text)
