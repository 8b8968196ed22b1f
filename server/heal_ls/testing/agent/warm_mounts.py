"""A fresh sandbox for each warm run: new tmpfs over every writable place, in the run's own mount
namespace.

The warm server lives in one sandbox for many runs, so without this a run would see what the last
one left in /tmp, the home, a pytest.ini above the workspace or the bytecode prefix. The forked
child, once in its own user + mount namespace (warm_sandbox), mounts a size-capped tmpfs over
each of the view's writable places and binds back what the view keeps under them (the workspace,
the interpreter's folders, the run's own exchange folder: never another run's). The candidate
then runs with no capabilities, so it cannot unmount them to reach the server's shared ones.
Stdlib only.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import heal_protocol as wire

MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 8, 4096, 16384, 1 << 18
CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID = 0x00020000, 0x10000000, 0x20000000
CAPABILITY_VERSION_3 = 0x20080522
PR_SET_PDEATHSIG = 1
PID_FLOOR = 1000  # a run's PIDs start above this (a desktop's or CI job's are in the thousands)

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_char_p]


def mount(source: str | None, target: str, fstype: str | None, flags: int, data=None) -> None:
    def raw(text):
        return None if text is None else os.fsencode(text)

    if libc.mount(raw(source), raw(target), raw(fstype), flags, raw(data)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), target)


def make_target(source_fd: int, target: str) -> None:
    """An empty folder or file at target, like the one open at source_fd, to mount it on."""
    if os.path.lexists(target):
        return
    if os.path.isdir(f"/proc/self/fd/{source_fd}"):
        os.makedirs(target)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o644))


def mount_fresh(spec: wire.Fresh) -> None:
    """Mount the run's fresh tmpfs, bind back what its view binds under them, cover the unix
    sockets made since the server started. Raises OSError."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing of ours reaches the server
    binds = [(os.open(path, os.O_PATH), path) for path in spec.binds]
    for path, size in spec.tmpfs:
        os.makedirs(path, exist_ok=True)
        mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, f"size={int(size)}")
    for fd, path in binds:
        make_target(fd, path)
        mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)  # flags kept: read-only
        os.close(fd)
    for path in spec.covers:  # unix sockets made in the workspace since the start
        mount("/dev/null", path, None, MS_BIND)


def new_namespaces(flags: int) -> bool:
    """This process in a new user namespace (its own uid kept) and the `flags` ones; the new PID
    namespace holds the children forked from now on. False where the kernel refuses."""
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(CLONE_NEWUSER | flags) != 0:
        return False
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1")):
        _write(f"/proc/self/{name}", text)
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    return True


def fork_and_wait() -> None:
    """Fork: the child returns (and dies with this process); this process waits for it and
    exits with its status (128 + N for signal N)."""
    pid = os.fork()
    if pid == 0:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        return
    code = 70
    try:
        _, status = os.waitpid(pid, 0)
        code = 128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    finally:
        os._exit(code)


def plausible_pids() -> None:
    """Called in a new PID namespace's first process, which stays as its init: the run gets a
    /proc of its own (best effort) and PIDs counted on from a random number above PID_FLOOR,
    under a parent that is not init; the processes it starts follow on. A run must not tell
    it is sandboxed by being pid 1 or 2. Only the run returns."""
    with contextlib.suppress(OSError):
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    with contextlib.suppress(OSError, ValueError):
        with open("/proc/sys/kernel/pid_max") as handle:
            top = min(int(handle.read()), 1 << 15) - PID_FLOOR
        _write(
            "/proc/sys/kernel/ns_last_pid",
            str(PID_FLOOR + int.from_bytes(os.urandom(4), "big") % top),
        )
    fork_and_wait()  # init waits for the run's parent
    fork_and_wait()  # which waits for the run


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def drop_capabilities() -> None:
    """No capabilities left in the run's user namespace: its mounts stay as they are."""
    header = (ctypes.c_uint32 * 2)(CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: twice, all empty
    if libc.capset(header, data) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), "capset")
