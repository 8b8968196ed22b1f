"""Per-run limits inside a warm child: rlimits, and private PID and mount namespaces.

The counterpart of heal_ls.testing.sandbox for forked runs. A sandboxed run is forked by a warm
server that itself runs inside the sandbox (read-only files, no network, no secrets); what stays
per run is done here: the rlimits, a nested user + PID namespace whose first process runs pytest
(so every process the run starts dies with it), and a mount namespace of its own where every
writable place is a fresh tmpfs (warm_mounts): no run sees what another left behind.
The forked child is single-threaded, which unshare(CLONE_NEWUSER) requires. Stdlib only.
"""

from __future__ import annotations

import sys

import heal_protocol as wire
import warm_mounts

try:
    import resource
except ImportError:  # no rlimits where Python has no resource module (Windows)
    resource = None  # type: ignore[assignment]

LIMITS: tuple[tuple[str, str], ...] = (("RLIMIT_AS", "memory"), ("RLIMIT_CPU", "cpu_seconds"))
LIMITS += (("RLIMIT_FSIZE", "file_size"), ("RLIMIT_NPROC", "processes"))


def apply(spec: wire.Limits | None, env: dict) -> None:
    """Apply the run's Limits: rlimits, a PID namespace, fresh mounts.

    With pid_namespace, this process stays outside as a waiter and only its child returns.
    fresh (warm_mounts.mount_fresh's spec): the run's writable places are new; a run that cannot
    have them raises (it fails: it never runs on the server's shared ones).
    """
    if not spec:
        return
    for name, key in LIMITS:
        _limit(name, getattr(spec, key))
    fresh = spec.fresh
    flags = warm_mounts.CLONE_NEWPID | (warm_mounts.CLONE_NEWNS if fresh else 0)
    if spec.pid_namespace and _new_namespaces(flags):
        if fresh:
            warm_mounts.mount_fresh(fresh)
        warm_mounts.fork_and_wait()  # the namespace's first process: every process dies with it
        if fresh:
            warm_mounts.plausible_pids()
            warm_mounts.drop_capabilities()
    elif fresh:
        raise OSError("heal-ls warm runner: no namespaces of its own for this run")


def _limit(name: str, value) -> None:
    if resource is None or not value or not hasattr(resource, name):
        return
    limit = getattr(resource, name)
    try:
        soft, hard = resource.getrlimit(limit)
        cap = int(value) if hard == resource.RLIM_INFINITY else min(int(value), hard)
        resource.setrlimit(limit, (cap, hard))
    except (ValueError, OSError):
        pass


def _new_namespaces(flags: int) -> bool:
    try:
        return sys.platform.startswith("linux") and warm_mounts.new_namespaces(flags)
    except (OSError, AttributeError):
        return False
