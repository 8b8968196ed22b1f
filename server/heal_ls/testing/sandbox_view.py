"""What a sandboxed run sees of the file system: the workspace, the interpreter's
paths, and the home folders it must not."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

TESTING_DIR = str(Path(__file__).resolve().parent)  # our plugin and warm server live here


@dataclass(frozen=True)
class View:
    hidden: tuple[str, ...]  # fresh empty tmpfs
    keep: tuple[str, ...]  # bound back read-only (they live under a hidden dir)
    writable: tuple[str, ...]  # bound read-write at the same path
    inside: dict  # host dir -> path inside the sandbox, bound read-write
    cwd: str


def home_dirs() -> list[str]:
    """$HOME and the home the password database knows (code can find either)."""
    homes = {os.path.expanduser("~")}
    with contextlib.suppress(ImportError, KeyError):
        import pwd

        homes.add(pwd.getpwuid(os.getuid()).pw_dir)
    return sorted(h for h in homes if h and h != "/")


def hidden_dirs() -> list[str]:
    dirs = ["/tmp", "/var/tmp", "/run", "/home", "/root", "/dev/shm", tempfile.gettempdir()]
    dirs += home_dirs()
    return sorted({os.path.realpath(d) for d in dirs if os.path.isdir(d) and d != "/"})


@functools.lru_cache(maxsize=16)
def python_paths(python: str, pythonpath: str) -> tuple[str, ...]:
    """Where the interpreter reads from: sys.path and its prefixes (asked once per python)."""
    code = "import sys, json; print(json.dumps(sys.path + [sys.prefix, sys.base_prefix]))"
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": pythonpath}
    paths = [os.path.dirname(os.path.dirname(os.path.abspath(python)))]
    try:
        done = subprocess.run(
            [python, "-c", code], capture_output=True, text=True, timeout=20, env=env
        )
        paths += json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        pass
    return tuple(p for p in paths if p and os.path.exists(p))


def view(root: str, python: str, env: dict, writable=(), inside=None) -> View:
    hidden = hidden_dirs()
    wanted = [root, TESTING_DIR, *python_paths(python, env.get("PYTHONPATH", ""))]
    wanted += [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    keep = []
    for path in sorted({os.path.realpath(p) for p in wanted if p and os.path.exists(p)}):
        if any(_under(path, h) for h in hidden) and path not in keep:
            keep.append(path)
    return View(
        hidden=tuple(hidden),
        keep=tuple(keep),
        writable=tuple(os.path.realpath(w) for w in writable),
        inside=dict(inside or {}),
        cwd=os.path.realpath(root),
    )


def _under(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")
