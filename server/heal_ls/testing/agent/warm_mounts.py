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

import ctypes
import os

MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 4096, 16384, 1 << 18
CAPABILITY_VERSION_3 = 0x20080522

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


def mount_fresh(spec: dict) -> None:
    """spec: {"tmpfs": [[path, bytes], ...] outer first, "binds": [path, ...]}. Raises OSError."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing of ours reaches the server
    binds = [(os.open(path, os.O_PATH), path) for path in spec["binds"]]
    for path, size in spec["tmpfs"]:
        os.makedirs(path, exist_ok=True)
        mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, f"size={int(size)}")
    for fd, path in binds:
        make_target(fd, path)
        mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)  # flags kept: read-only
        os.close(fd)


def drop_capabilities() -> None:
    """No capabilities left in the run's user namespace: its mounts stay as they are."""
    header = (ctypes.c_uint32 * 2)(CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: twice, all empty
    if libc.capset(header, data) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), "capset")
