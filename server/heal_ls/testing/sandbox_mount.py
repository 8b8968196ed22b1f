"""Build the sandbox's view inside fresh namespaces, then become the command: the `unshare` level.

Run by heal-ls's own interpreter (`python -I -S sandbox_mount.py VIEW_JSON CMD...`) as the first
process of the namespaces util-linux `unshare` made, before anything of the candidate exists; the
view comes from heal-ls on the command line, nothing is read from a place a run can write. No
shell: descriptors are numbered by the kernel and closed on exec (Python opens them
close-on-exec), so neither /bin/sh's dialect (dash takes one-digit descriptors only) nor a leaked
descriptor can matter. The steps are bubblewrap's: open every folder to bind back before tmpfs
covers it, mount the tmpfs, bind each folder back from its descriptor (read-only unless it is the
run's writable folder), remount every other mount point read-only, check that the root and the
workspace really are read-only, then exec the command with the environment this process got.

Standard library only (and warm_mounts, stdlib only, from the agent folder beside this file: the
warm runner mounts its fresh tmpfs with it too), no import of heal_ls: `-S -I` keep the user's PYTHON* variables and site
packages out of this step. Nothing may be imported late either (a codec lookup is an import):
heal-ls's own standard library is often under a folder the view hides.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import warnings  # noqa: F401 - os.execvpe imports it to search PATH, after the mounts
from typing import TYPE_CHECKING

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "agent"))
if TYPE_CHECKING:  # the same file, as heal-ls's type checker knows it
    from heal_ls.testing.agent import heal_protocol as wire
else:
    import heal_protocol as wire
import warm_mounts  # type: ignore[import-not-found]  # noqa: E402

make_target, mount = warm_mounts.make_target, warm_mounts.mount

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND = 32, 4096
# Flags a mount made outside this user namespace keeps locked: a remount must repeat them.
LOCKED = ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC))
FAILED = 125  # unshare(1)'s own exit status for "could not set up"
PIDS_ONLY = "--pids-only"  # argv[1] under bwrap
OCTAL = re.compile(rb"\\([0-7]{3})")  # mountinfo writes a space in a path as \040


def remount_read_only(path: str) -> None:
    kept = os.statvfs(path).f_flag
    flags = MS_REMOUNT | MS_BIND | MS_RDONLY
    for stat_flag, mount_flag in LOCKED:
        flags |= mount_flag if kept & stat_flag else 0
    mount(None, path, None, flags)


def mount_points() -> list[str]:
    """Every mount point of this namespace (mountinfo's 5th field, octal escapes undone). No
    codec lookup here: this runs when heal-ls's own standard library may be hidden already."""
    with open("/proc/self/mountinfo", "rb") as handle:
        fields = [line.split(b" ")[4] for line in handle if line.strip()]
    return [os.fsdecode(OCTAL.sub(lambda m: bytes([int(m[1], 8)]), f)) for f in fields]


def under(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def build(view: wire.MountView) -> None:
    binds = [(os.open(src, os.O_PATH), dst, rw) for src, dst, rw in view.binds]
    hidden = [path for path, _ in view.hidden]
    for path, size in view.hidden:  # sorted: one under another is made in the outer tmpfs
        os.makedirs(path, exist_ok=True)
        mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size}")
    for fd, target, rw in binds:
        make_target(fd, target)
        mount(f"/proc/self/fd/{fd}", target, None, MS_BIND)
        if not rw:
            remount_read_only(target)
        os.close(fd)
    own = {"/proc", *hidden, *(target for _, target, _ in binds)}
    for point in mount_points():
        if point in own or any(under(point, h) for h in ("/proc", *hidden)):
            continue
        try:
            remount_read_only(point)
        except OSError:
            pass  # shadowed or vanished; the checks below are what must hold
    writable = [t for _, t, rw in binds if rw]
    for path in ("/", view.cwd):
        if not any(under(path, w) for w in writable) and not os.statvfs(path).f_flag & os.ST_RDONLY:
            raise OSError(f"{path} is still writable in the sandbox")
    os.chdir(view.cwd)


def environment() -> dict[bytes, bytes]:
    """The environment this process was started with (Python may have added LC_CTYPE since)."""
    with open("/proc/self/environ", "rb") as handle:
        pairs = [item.partition(b"=") for item in handle.read().split(b"\0") if b"=" in item]
    return {name: value for name, _, value in pairs}


def main(argv: list[str]) -> None:
    """argv: VIEW_JSON CMD... (the unshare level), or PIDS_ONLY CMD... (bwrap built the view)."""
    try:
        if argv[1] == PIDS_ONLY:
            _own_pid_namespace()
        else:
            build(wire.build(wire.MountView, json.loads(argv[1])))
    except Exception as exc:  # noqa: BLE001 - any failure here means no sandbox: say so, stop
        sys.stderr.write(f"heal-ls sandbox: cannot build the view: {exc}\n")
        sys.exit(FAILED)
    warm_mounts.plausible_pids()  # this process stays as the namespace's init: the command is not pid 1
    for name in ("SIGPIPE", "SIGXFSZ"):  # Python ignores them; the command gets the defaults
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    os.execvpe(argv[2], argv[2:], environment())


def _own_pid_namespace() -> None:
    """Under bwrap, whose own init is pid 1 and the command pid 2: new namespaces whose first
    process this becomes (where the kernel refuses them, the command runs as it is)."""
    if warm_mounts.new_namespaces(warm_mounts.CLONE_NEWPID | warm_mounts.CLONE_NEWNS):
        warm_mounts.fork_and_wait()


if __name__ == "__main__":
    main(sys.argv)
