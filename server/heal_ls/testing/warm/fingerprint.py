"""What the warm server depends on, as a comparable value: when it changes, the server restarts.

pytest configuration files (ini files up the tree, every conftest.py under the root), the mtimes of
the interpreter's package folders (an install or upgrade changes them) and the PYTHON* variables the
interpreter reads at start-up.
"""

from __future__ import annotations

import os

INI_FILES = ("pyproject.toml", "pytest.ini", ".pytest.ini", "setup.cfg", "tox.ini")
SKIP_DIRS = {"node_modules", "__pycache__", "site-packages", "build", "dist", "venv"}
MAX_DIRS = 3000  # bound the walk on huge trees; deeper conftest files are then not watched


Stat = tuple[str, int, int] | tuple[str, None]  # (path, mtime_ns, size) or (path, None)
Key = tuple[tuple[Stat, ...], tuple[tuple[str, str], ...]]  # what a server was started for


def fingerprint(root: str, cwd: str, env: dict[str, str], site_dirs: list[str]) -> Key:
    paths = [*ini_paths(root), *ini_paths(cwd), *conftest_paths(root), *site_dirs]
    return tuple(_stat(p) for p in dict.fromkeys(paths)), startup_env(env)


def startup_env(env: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """Variables read when the interpreter starts, which a forked child cannot change."""
    keep = {k: v for k, v in env.items() if k.startswith("PYTHON")}
    keep.pop("PYTHONDONTWRITEBYTECODE", None)
    return tuple(sorted(keep.items()))


def ini_paths(folder: str) -> list[str]:
    """Config files in the folder and its ancestors (pytest searches upward for its rootdir)."""
    paths, folder = [], os.path.abspath(folder)
    while True:
        paths += [os.path.join(folder, name) for name in (*INI_FILES, "conftest.py")]
        parent = os.path.dirname(folder)
        if parent == folder:
            return paths
        folder = parent


def conftest_paths(root: str) -> list[str]:
    found = []
    for seen, (folder, dirs, files) in enumerate(os.walk(root)):
        if "conftest.py" in files:
            found.append(os.path.join(folder, "conftest.py"))
        dirs[:] = [d for d in dirs if _walkable(folder, d)] if seen < MAX_DIRS else []
    return found


def _walkable(folder: str, name: str) -> bool:
    if name.startswith(".") or name in SKIP_DIRS:
        return False
    return not os.path.exists(os.path.join(folder, name, "pyvenv.cfg"))


def _stat(path: str) -> Stat:
    try:
        st = os.stat(path)
    except OSError:
        return (path, None)
    return (path, st.st_mtime_ns, st.st_size)
