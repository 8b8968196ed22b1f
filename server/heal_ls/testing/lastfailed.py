"""pytest's own record of the tests that failed in the user's last runs (cacheprovider's
`<cache_dir>/v/cache/lastfailed`, a JSON object of nodeid -> true), read without pytest.

The user runs pytest in the folder, so its rootdir and config file are found as pytest finds
them from there (`pytest_home`): the first of pytest.toml, .pytest.toml ([pytest]), pytest.ini,
.pytest.ini, pyproject.toml ([tool.pytest] or [tool.pytest.ini_options]), tox.ini ([pytest]),
setup.cfg ([tool:pytest]) in the folder or above it; else the nearest pyproject.toml, else a
setup.py above it, else the folder. The cache lives in the `cache_dir` ini
option (default .pytest_cache) under that rootdir, and its node ids are relative to the rootdir;
they are returned relative to the folder, as heal-ls's own runs (`--rootdir <folder>`) name them.
"""

from __future__ import annotations

import configparser
import importlib
import json
import os
import re
from collections.abc import Iterator
from typing import Any

DEFAULT_CACHE_DIR = ".pytest_cache"
LASTFAILED = os.path.join(DEFAULT_CACHE_DIR, "v", "cache", "lastfailed")
CONFIG_FILES = (
    *("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini"),  # these count even empty
    *("pyproject.toml", "tox.ini", "setup.cfg"),
)
SECTIONS = {"tox.ini": "pytest", "setup.cfg": "tool:pytest"}  # the ini files' pytest sections


def pytest_home(root: str) -> tuple[str, dict[str, str]]:
    """(rootdir, ini options) of a pytest run started in `root` without arguments."""
    root = os.path.abspath(root)
    found = config_file(root)
    if found is not None:
        return os.path.dirname(found[0]), found[1]
    for marker in ("pyproject.toml", "setup.py"):
        for folder in _upwards(root):
            if os.path.isfile(os.path.join(folder, marker)):
                return folder, {}
    return root, {}


def config_file(root: str) -> tuple[str, dict[str, str]] | None:
    """(path, ini options) of the config file pytest started in `root` reads, if any."""
    for folder in _upwards(os.path.abspath(root)):
        for name in CONFIG_FILES:
            options = _ini_options(os.path.join(folder, name))
            if options is not None:
                return os.path.join(folder, name), options
    return None


def lastfailed_path(root: str) -> str:
    rootdir, options = pytest_home(root)
    cache_dir = os.path.expanduser(os.path.expandvars(options.get("cache_dir", DEFAULT_CACHE_DIR)))
    return os.path.join(rootdir, cache_dir, "v", "cache", "lastfailed")


def read_lastfailed(root: str) -> list[str] | None:
    """The nodeids pytest last saw failing in `root` (sorted, relative to `root`; tests outside
    it are left out), or None when there is no readable cache. A half-written or odd file reads
    as None: the next change brings it."""
    try:
        with open(lastfailed_path(root), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    rootdir = pytest_home(root)[0]
    failed = (nodeid for nodeid, failed in data.items() if isinstance(nodeid, str) and failed)
    return sorted(filter(None, (_from_rootdir(n, rootdir, root) for n in failed)))


def _from_rootdir(nodeid: str, rootdir: str, root: str) -> str | None:
    """A rootdir-relative node id as `root` names it (None: not a test of `root`)."""
    root = os.path.abspath(root)
    if rootdir == root:
        return nodeid
    path, sep, rest = nodeid.partition("::")
    full = os.path.normpath(os.path.join(rootdir, path))
    if os.path.commonpath([full, root]) != root:
        return None
    return os.path.relpath(full, root).replace(os.sep, "/") + sep + rest


def _upwards(folder: str) -> Iterator[str]:
    while True:
        yield folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        folder = parent


def _ini_options(path: str) -> dict[str, str] | None:
    """The pytest options of a config file, or None when it is not pytest's (or unreadable)."""
    name = os.path.basename(path)
    if not os.path.isfile(path):
        return None
    try:
        if name.endswith(".toml"):
            return _toml_options(path, name)
        parser = configparser.ConfigParser(interpolation=None)
        parser.read(path, encoding="utf-8")
    except (OSError, ValueError, configparser.Error):
        return None
    section = SECTIONS.get(name, "pytest")
    if parser.has_section(section):
        return dict(parser.items(section))
    return {} if name in ("pytest.ini", ".pytest.ini") else None


def _toml_options(path: str, name: str) -> dict[str, str] | None:
    try:
        tomllib = importlib.import_module("tomllib")  # Python 3.11+
    except ImportError:  # 3.10: the section headers and `key = "value"` lines only
        return _toml_options_by_lines(path, name)
    with open(path, "rb") as handle:
        document = tomllib.load(handle)
    if name != "pyproject.toml":  # pytest.toml: the [pytest] table, a config even when empty
        table = document.get("pytest")
        return _strings(table) if isinstance(table, dict) else {}
    tool = document.get("tool", {}).get("pytest")
    if not isinstance(tool, dict):
        return None
    options = tool.get("ini_options")
    return _strings(options if isinstance(options, dict) else tool)


def _toml_options_by_lines(path: str, name: str) -> dict[str, str] | None:
    wanted = (
        ("[pytest]",)
        if name != "pyproject.toml"
        else ("[tool.pytest]", "[tool.pytest.ini_options]")
    )
    found: dict[str, str] | None = None if name == "pyproject.toml" else {}
    inside = False
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            stripped = line.strip()
            if stripped.startswith("["):
                inside = stripped in wanted
                found = {} if inside and found is None else found
            elif inside and found is not None:
                pair = re.match(r"""([A-Za-z_][\w-]*)\s*=\s*["']([^"']*)["']\s*(#.*)?$""", stripped)
                if pair:
                    found[pair.group(1)] = pair.group(2)
    return found


def _strings(table: dict[str, Any]) -> dict[str, str]:
    return {k: str(v) for k, v in table.items() if not isinstance(v, dict)}
