"""Per-run limits inside a warm child: rlimits, and private PID and mount namespaces.

The counterpart of heal_ls.testing.sandbox for forked runs. A sandboxed run is forked by a warm
server that itself runs inside the sandbox (read-only files, no network, no secrets); what stays
per run is done here: the rlimits, a nested user + PID namespace whose first process runs pytest
(so every process the run starts dies with it), and a mount namespace of its own where every
writable place is a fresh tmpfs (warm_mounts): no run sees what another left behind.
The forked child is single-threaded, which unshare(CLONE_NEWUSER) requires. Stdlib only.
"""

from __future__ import annotations

import os
import sys

import warm_mounts

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
PR_SET_PDEATHSIG = 1
LIMITS: tuple[tuple[str, str], ...] = (("RLIMIT_AS", "memory"), ("RLIMIT_CPU", "cpu_seconds"))
LIMITS += (("RLIMIT_FSIZE", "file_size"), ("RLIMIT_NPROC", "processes"))


def apply(spec: dict | None, env: dict) -> None:
    """Apply {"memory", "cpu_seconds", "file_size", "processes", "pid_namespace", "fresh"}.

    With pid_namespace, this process stays outside as a waiter and only its child returns.
    fresh (warm_mounts.mount_fresh's spec): the run's writable places are new; a run that cannot
    have them raises (it fails: it never runs on the server's shared ones).
    """
    if not spec:
        return
    for name, key in LIMITS:
        _limit(name, spec.get(key))
    fresh = spec.get("fresh")
    if spec.get("pid_namespace") and _new_namespaces(mounts=bool(fresh)):
        if fresh:
            warm_mounts.mount_fresh(fresh)
        _fork_first_process()
        if fresh:
            warm_mounts.drop_capabilities()
    elif fresh:
        raise OSError("heal-ls warm runner: no namespaces of its own for this run")


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


def _libc():
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _new_namespaces(mounts: bool) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = _libc()
        uid, gid = os.getuid(), os.getgid()
        if libc.unshare(CLONE_NEWUSER | CLONE_NEWPID | (CLONE_NEWNS if mounts else 0)) != 0:
            return False
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
        return True
    except (OSError, AttributeError):
        return False


def _fork_first_process() -> None:
    """Fork the namespace's first process (it returns and runs pytest); when it ends the kernel
    kills everything else in the namespace. This process waits and exits alike."""
    pid = os.fork()
    if pid == 0:
        try:
            import signal

            _libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the waiter killed: so are we
        except (OSError, AttributeError):
            pass
        return
    code = 70
    try:
        _, status = os.waitpid(pid, 0)
        # -N for signal N, else the exit code (os has a helper for this only from 3.9)
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    finally:
        os._exit(code if code >= 0 else 128 - code)


def _write(path: str, text: str) -> None:
    with open(path, "w") as file:
        file.write(text)
