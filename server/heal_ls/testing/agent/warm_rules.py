"""What the warm server may hold: the workspace rule, and what a child teaches it to preload.

Stdlib + pytest only (runs under the user's interpreter). A "workspace module" is one whose file
is under the workspace root but not inside an interpreter prefix or site-packages (a .venv inside
the project is not workspace code). The server never imports workspace modules, so children
always import them fresh; before every fork the server checks that this still holds.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import site
import sys
from contextlib import redirect_stderr, redirect_stdout

import heal_protocol as wire
import warm_rewritten
from heal_exchange import read_exchange

PROGRAM_ENTRIES = {"__main__", "__mp_main__"}  # module names that mean "run a program"

HERE = os.path.dirname(os.path.abspath(__file__))


def _install_dirs() -> list[str]:
    dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix, HERE}
    dirs.update(site.getsitepackages() if hasattr(site, "getsitepackages") else [])
    return [os.path.realpath(d) for d in dirs if d]


INSTALL_DIRS = _install_dirs()


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def is_workspace(path: str, root: str) -> bool:
    real = os.path.realpath(path)
    if not _under(real, root):
        return False
    return not any(_under(real, d) and len(d) > len(root) for d in INSTALL_DIRS)


def base_sys_path(root: str) -> list[str]:
    """sys.path without workspace folders (the server has already removed its own folder)."""
    return [p for p in sys.path if p and not is_workspace(p, root)]


_checked: set[str] = set()


def assert_no_workspace_modules(root: str) -> None:
    """Refuse to fork if any workspace module got into this process (children would see it stale)."""
    for name in list(sys.modules.keys() - _checked):
        path = getattr(sys.modules.get(name), "__file__", None)
        if isinstance(path, str) and is_workspace(path, root):
            raise RuntimeError(f"workspace module {name} ({path}) is loaded in the warm server")
        _checked.add(name)


def quiet_import(name: str) -> None:
    """Import a module for its side effect of being cached; failures and prints are ignored."""
    sink = io.StringIO()
    try:
        with redirect_stdout(sink), redirect_stderr(sink):
            importlib.import_module(name)
    except BaseException:  # noqa: BLE001 - a module that cannot preload is simply not preloaded
        pass


def fill_pure_caches() -> None:
    """Fill caches that only mirror sys.modules, so each child does not rebuild them:
    inspect.getmodule's file index (pytest's traceback formatting walks every module)."""
    inspect = sys.modules.get("inspect")
    if inspect is not None:
        try:
            inspect.getmodule(None, "<heal-ls-warm-index>")
        except Exception:  # noqa: BLE001 - a cache, nothing more
            pass


def excluded(name: str, exclude: set[str]) -> bool:
    """Is the module, or a package it lives in, excluded from preloading? A program's entry
    module always is: importing `venv.__main__` runs venv (and so would a planted one)."""
    parts = name.split(".")
    if PROGRAM_ENTRIES.intersection(parts):
        return True
    return any(".".join(parts[:i]) in exclude for i in range(1, len(parts) + 1))


def shadowed(name: str, root: str) -> bool:
    """True when a top-level name also exists in the workspace (it must come from there)."""
    top = name.partition(".")[0]
    return any(
        os.path.exists(os.path.join(root, folder, top + suffix))
        for folder in ("", "src", "tests", "test")
        for suffix in (".py", "")
    )


class RewriteRecorder:
    """A pytest plugin object for the child: checks the rewritten preloads fit this run, and
    remembers which module names pytest marked for rewriting (never preload those plainly:
    pytest would warn "already imported so cannot be rewritten")."""

    marked: set[str] | None = None
    output = ""

    def pytest_configure(self, config) -> None:
        warm_rewritten.check_child(config, RewriteRecorder.output)

    def pytest_unconfigure(self, config) -> None:
        hook = getattr(config.pluginmanager, "rewrite_hook", None)
        marked = getattr(hook, "_must_rewrite", None)
        RewriteRecorder.marked = set(marked) if isinstance(marked, (set, frozenset)) else None


def _outside_workspace(name: str, module, root: str, base_path: list[str]) -> bool:
    path = getattr(module, "__file__", None)
    if not isinstance(path, str) or name == "__main__" or is_workspace(path, root):
        return False
    real = os.path.realpath(path)
    return any(_under(real, os.path.realpath(p)) for p in base_path) and not shadowed(name, root)


def learnable(name: str, module, root: str, base_path: list[str], marked: set[str]) -> bool:
    """May the server import this module plainly?"""
    if excluded(name, marked) or warm_rewritten.is_rewritten(module):
        return False
    return _outside_workspace(name, module, root, base_path)


def write_learned(output: str, before: set[str], root: str, base_path: list[str]) -> None:
    marked = RewriteRecorder.marked
    if marked is None:
        return  # unknown pytest internals: learn nothing rather than risk a difference
    new = [(name, module) for name, module in list(sys.modules.items()) if name not in before]
    learned = wire.Imported(
        plain=[n for n, m in new if learnable(n, m, root, base_path, marked)],
        rewritten=[
            n
            for n, m in new
            if warm_rewritten.is_rewritten(m) and _outside_workspace(n, m, root, base_path)
        ],
        marked=sorted(marked),
        prefix=sys.pycache_prefix,
    )
    with open(output + ".modules", "w", encoding="utf-8") as file:
        file.write(wire.encode(learned))


def read_learned(output: str) -> wire.Imported:
    try:
        data = json.loads(read_exchange(output + ".modules", warm_rewritten.LIMIT))
        os.unlink(output + ".modules")
        return wire.build(wire.Imported, data)
    except (OSError, ValueError, TypeError):
        return wire.Imported()
