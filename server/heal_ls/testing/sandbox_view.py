"""What a sandboxed run sees of the file system: the workspace, the interpreter's
paths, and the home folders it must not.

Every writable place is a fresh tmpfs with a size cap (a run cannot pin host memory), and every
unix socket left visible (in the workspace or a system folder) is covered by /dev/null: a path
socket is reachable across network namespaces, so a candidate could otherwise talk to a daemon.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

try:
    import pwd
except ImportError:  # no password database (Windows)
    pwd = None  # type: ignore[assignment]

from heal_ls.payload import from_object
from heal_ls.testing.agent import heal_protocol as wire

TESTING_DIR = str(Path(__file__).resolve().parent)  # our plugin and warm server live here
TEMP_SIZE = 1024**3  # bytes of each temp dir's tmpfs (where tests write their files)
OTHER_SIZE = 128 * 1024**2  # bytes of every other tmpfs (home folders, /run, /dev/shm)
# Readable system folders where daemons leave their sockets (/run and /tmp are hidden anyway).
SOCKET_DIRS = ("/var", "/srv", "/etc", "/opt", "/mnt", "/media")
SOCKET_SCAN_LIMIT = 200_000  # entries; a bigger tree is scanned only this far
# Big folders no daemon puts its socket in (installed packages, git's object store, bytecode).
SOCKETLESS = {"site-packages", "dist-packages", "node_modules", "objects", "__pycache__"}


@dataclass(frozen=True)
class View:
    hidden: tuple[str, ...]  # fresh empty tmpfs
    keep: tuple[str, ...]  # bound back read-only (they live under a hidden dir)
    writable: tuple[str, ...]  # bound read-write at the same path
    inside: dict[str, str]  # host dir -> path inside the sandbox, bound read-write
    cwd: str
    covered: tuple[str, ...] = ()  # unix sockets covered by /dev/null (bound last)

    def tmpfs(self) -> list[tuple[str, int]]:
        """(path, size cap in bytes) of every fresh tmpfs, outer before inner."""
        return [(path, tmpfs_size(path)) for path in self.hidden]


def tmpfs_size(path: str) -> int:
    temp = {"/tmp", "/var/tmp", os.path.realpath(tempfile.gettempdir())}
    return TEMP_SIZE if path in temp else OTHER_SIZE


def home_dirs() -> list[str]:
    """$HOME and the home the password database knows (code can find either)."""
    homes = {os.path.expanduser("~")}
    if pwd is not None:
        with contextlib.suppress(KeyError):
            homes.add(pwd.getpwuid(os.getuid()).pw_dir)
    return sorted(h for h in homes if h and h != "/")


def hidden_dirs(home: str | None = None) -> list[str]:
    """Fresh tmpfs: the temp dirs, /run, the home folders and the run's HOME (made if missing)."""
    dirs = ["/tmp", "/var/tmp", "/run", "/home", "/root", "/dev/shm", tempfile.gettempdir()]
    dirs = [d for d in dirs + home_dirs() if os.path.isdir(d)]
    return sorted({os.path.realpath(d) for d in dirs} - {"/"} | ({home} if home else set()))


_PYTHON_PATHS: dict[tuple[str, str], tuple[str, ...]] = {}


def python_paths(python: str, pythonpath: str) -> tuple[str, ...]:
    """Where the interpreter reads from: sys.path and its prefixes (asked once per python). A
    probe that failed (an interpreter slow to start on a loaded machine) is not remembered: the
    next sandbox asks again rather than hide the interpreter's library from every later run."""
    if (python, pythonpath) in _PYTHON_PATHS:
        return _PYTHON_PATHS[python, pythonpath]
    code = "import sys, json; print(json.dumps(sys.path + [sys.prefix, sys.base_prefix]))"
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": pythonpath}
    paths = [os.path.dirname(os.path.dirname(os.path.abspath(python)))]
    try:
        done = subprocess.run(
            [python, "-c", code], capture_output=True, text=True, timeout=60, env=env
        )
        asked = from_object(list[str], json.loads(done.stdout))
    except (OSError, subprocess.SubprocessError, ValueError):  # PayloadError too
        return tuple(p for p in paths if os.path.exists(p))
    found = tuple(p for p in paths + asked if p and os.path.exists(p))
    _PYTHON_PATHS[python, pythonpath] = found
    return found


def view(
    root: str,
    python: str,
    env: dict[str, str],
    writable: Sequence[str] = (),
    inside: dict[str, str] | None = None,
    launcher: bool = False,
) -> View:
    """launcher: heal-ls's own interpreter runs inside too (sandbox_mount.py under bwrap)."""
    hidden = hidden_dirs(env.get("HOME"))
    wanted = [root, TESTING_DIR, *python_paths(python, env.get("PYTHONPATH", ""))]
    wanted += python_paths(sys.executable, "") if launcher else []
    wanted += [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    keep = []
    for path in sorted({os.path.realpath(p) for p in wanted if p and os.path.exists(p)}):
        if any(is_under(path, h) for h in hidden) and path not in keep:
            keep.append(path)
    return View(
        hidden=tuple(hidden),
        keep=tuple(keep),
        writable=tuple(os.path.realpath(w) for w in writable),
        inside=dict(inside or {}),
        cwd=os.path.realpath(root),
        covered=tuple(visible_sockets(os.path.realpath(root), hidden)),
    )


def probe_view() -> View:
    """The view the level probe runs `true` in: /tmp hidden (where tools may be found through
    it, as on NixOS), with heal-ls's own launcher and interpreter kept (a checkout under /tmp)."""
    own = [TESTING_DIR, *python_paths(sys.executable, "")]
    kept = {os.path.realpath(p) for p in own if p and os.path.exists(p)}
    keep = tuple(sorted(p for p in kept if is_under(p, "/tmp")))
    return View(hidden=("/tmp",), keep=keep, writable=(), inside={}, cwd="/")


def per_run(box: View | None, shared: str, own: str) -> wire.Fresh:
    """What a warm run mounts afresh in its own mount namespace (warm_mounts.mount_fresh): every
    tmpfs of the view, and what the view binds under them bound back; of the exchange folder all
    runs share (`shared`), only the run's own (`own`). box: the view its server was started in."""
    assert box is not None, "a sandboxed warm server is started with its view"
    targets = [*box.keep, *box.writable, *(t for t in box.inside.values() if t != shared), own]
    under_tmpfs = [t for t in targets if any(is_under(t, h) for h in box.hidden)]
    top = {t for t in under_tmpfs if not any(t != o and is_under(t, o) for o in under_tmpfs)}
    covers = sorted(set(_sockets_under(box.cwd)) - set(box.covered))  # made since the start
    return wire.Fresh(tmpfs=box.tmpfs(), binds=sorted(top), covers=covers)


def visible_sockets(root: str, hidden: list[str]) -> list[str]:
    """Unix sockets in the workspace and the system folders that the view leaves visible."""
    found = [p for top in SOCKET_DIRS for p in _sockets_under(top)]
    found = [p for p in found if not any(is_under(p, h) for h in hidden)]
    return sorted({*found, *_sockets_under(root)})  # the workspace is bound back: all of it


def _sockets_under(top: str) -> list[str]:
    found, stack, seen = [], [top], 0
    while stack and seen < SOCKET_SCAN_LIMIT:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        seen += len(entries)
        for entry in entries:
            with contextlib.suppress(OSError):
                if entry.is_symlink():
                    continue
                if entry.is_dir():
                    if entry.name not in SOCKETLESS:
                        stack.append(entry.path)
                elif not entry.is_file() and stat.S_ISSOCK(
                    entry.stat(follow_symlinks=False).st_mode
                ):
                    found.append(entry.path)
    return found


def is_under(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")
