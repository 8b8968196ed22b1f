"""Which files are the user's code, which are tests, and which belong to someone else."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from functools import lru_cache

# not typing's: `check` imports this module before it launches pytest, and typing is ~5 ms that
# must come after (tests/e2e/test_check_one_run.py); type checkers read this name as theirs
TYPE_CHECKING = False
if TYPE_CHECKING:
    from heal_ls.models import Failure, RunResult

TEST_DIRS = {"tests", "test"}
# A module pytest collects tests from when it is named: a test function or class at the top
# level, or a unittest TestCase (parsedatetime's `class test(unittest.TestCase)`).
TOP_LEVEL_TEST = r"(?m)^(?:(?:async\s+)?def\s+test|class\s+Test|class\s+\w+\([^)]*TestCase[^)]*\))"
# Folders inside a workspace that hold other people's code (virtualenvs, vendored packages).
FOREIGN_DIRS = {
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "site-packages",
    "dist-packages",
    "node_modules",
    "__pypackages__",
    ".git",
}


def is_test_file(path: str | os.PathLike, root: str | os.PathLike | None = None) -> bool:
    """A pytest file (test_*.py, *_test.py, conftest.py) or any file under a tests/ folder.

    Without `root` only the file's own folder is looked at, so a workspace that happens to live
    under some /home/me/test/ folder is not mistaken for tests.
    """
    return _is_test_file(os.fspath(path), None if root is None else os.fspath(root))


@lru_cache(maxsize=8192)  # the ranking asks ~200 times a failure, of a few dozen files
def _is_test_file(path: str, root: str | None) -> bool:
    name = os.path.basename(path)  # not pathlib: ~6.5 ms of `check`'s start before pytest spawns
    if name == "conftest.py" or _named_like_a_test(name):
        return True
    return not TEST_DIRS.isdisjoint(_folders(path, root))


def _named_like_a_test(name: str) -> bool:
    """pytest's default `python_files`: test_*.py and *_test.py."""
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def _folders(path: str | os.PathLike, root: str | os.PathLike | None) -> tuple[str, ...]:
    """The folders between `root` and the file; without a root, only the file's own folder."""
    if root:
        return _relative_parts(path, root)[:-1]
    return (os.path.basename(os.path.dirname(path)),)


def defines_tests(path: str | os.PathLike) -> bool:
    """A module with a test at its top level (`def test*`, `class Test*`, a TestCase): pytest collects it
    when it is named on the command line, whatever `python_files` says (rope's `*test.py`)."""
    import re  # lazy: as pathlib in _relative_parts (only a file the name rule does not know reads this)

    try:
        with open(path, encoding="utf-8", errors="replace") as source:
            text = source.read()
    except OSError:
        return False
    return re.search(TOP_LEVEL_TEST, text) is not None


def _code_named_like_a_test(path: str | os.PathLike, root: str | None) -> bool:
    """A package module that only its name makes look like tests (trio's
    `src/trio/testing/_trio_test.py`, the `@trio_test` decorator): outside a tests/ folder, and
    no test at its top level, so pytest collects nothing from it. Taken for a test file, the
    frames of the decorator it defines would hide the test's real frame, and the event loop it
    calls would stand "on the failing call path"."""
    if not _named_like_a_test(os.path.basename(path)):
        return False  # conftest.py, or a tests/ folder's module: tests whatever they hold
    if not TEST_DIRS.isdisjoint(_folders(path, root)):
        return False
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        return False
    return not _defines_tests_at(os.fspath(path), stamp)


@lru_cache(maxsize=1024)  # asked per frame and per suspect; the stamp keeps an edited file fresh
def _defines_tests_at(path: str, _stamp: int) -> bool:
    return defines_tests(path)


class TestFiles:
    """Which files of a workspace hold tests for one ranking: those named as tests
    (`is_test_file`), and those a run collected a test from. pytest's own `python_files` and
    `testpaths` said so for the latter (rope's `ropetest/.../autoimporttest.py`): matching those
    patterns here would also take `rope/__init__.py`, as pytest applies them only where it
    collects. Built per run, so nothing leaks between workspaces."""

    def __init__(self, root: str, collected: Iterable[str] = ()) -> None:
        self.root = root
        self.collected = frozenset(_real(path) for path in set(collected))  # a file, many tests

    def __contains__(self, path: str | os.PathLike) -> bool:
        if _real(path) in self.collected:
            return True
        return is_test_file(path, self.root) and not _code_named_like_a_test(path, self.root)

    def is_test_module(self, path: str | os.PathLike) -> bool:
        """A module of tests as its own folder tells (its name, a tests/ folder it is
        directly in; the folders above it are not looked at), or one the run collected from?"""
        if _real(path) in self.collected:
            return True
        return is_test_file(path) and not _code_named_like_a_test(path, None)

    @classmethod
    def of_run(
        cls,
        root: str,
        run: RunResult | None,
        failure: Failure | None = None,
        also_failing: Iterable[Failure] | None = None,
        known: Iterable[str] = (),
    ) -> TestFiles:
        """The files of the run's tests, the failing tests' own included; not a module's
        doctests (--doctest-modules): that module is code. `known`: files other runs
        collected tests from (the impact map's)."""
        tests = [(t.nodeid, t.path) for t in run.tests] if run is not None else []
        for failed in (failure, *(also_failing or ())):
            if failed is not None and failed.test:
                tests.append((failed.test, failed.test_path))
        files = [path for nodeid, path in tests if path and not is_doctest(nodeid)]
        return cls(root, [*files, *known])


def nodeid_file(nodeid: str) -> str:
    """The file part of a pytest node id (`tests/test_a.py::TestA::test_b[1]`), as pytest
    wrote it: relative to its rootdir, `/`-separated."""
    return nodeid.split("::", 1)[0]


def is_doctest(nodeid: str) -> bool:
    """pytest names a module's doctest by the dotted name of what holds it
    (`src/pkg/maths.py::pkg.maths.twice`); a test function or class is one plain name."""
    _file, _sep, rest = nodeid.partition("::")
    return "." in rest.split("::")[0].split("[")[0]


def is_workspace_file(path: str | os.PathLike, root: str | os.PathLike) -> bool:
    """A real .py file inside `root` that is not in a virtualenv or vendored folder."""
    text = os.fspath(path)
    if text.startswith("<") or not text.endswith(".py"):  # <string>, <frozen ...>
        return False
    parts = _relative_parts(path, root)
    if not parts or parts[0] == "..":
        return False
    return not any(part in FOREIGN_DIRS for part in parts[:-1])


def relative_path(path: str | os.PathLike, root: str | os.PathLike) -> str:
    """`path` relative to `root` with `/` separators when inside it, else the absolute path."""
    if os.fspath(path).startswith("<"):  # <string>, <frozen importlib._bootstrap>
        return os.fspath(path)
    parts = _relative_parts(path, root)
    if not parts or parts[0] == "..":
        # lazy: as in _relative_parts
        from pathlib import PurePath

        return PurePath(os.path.abspath(path)).as_posix()
    return "/".join(parts)


def _relative_parts(path, root) -> tuple[str, ...]:
    try:
        rel = os.path.relpath(_real(path), _real(root))
    except ValueError:  # different drives on Windows
        return ("..",)
    # lazy: pathlib is ~6.5 ms of `check`'s start before it spawns pytest (the target's test-file
    # check needs no root, so no parts, then), and loads after that spawn anyway
    from pathlib import PurePath

    return PurePath(rel).parts


def _real(path) -> str:
    return _real_cached(os.fspath(path))


@lru_cache(maxsize=4096)
def _real_cached(path: str) -> str:
    return os.path.realpath(os.path.abspath(path))


def test_files(root: str, under: str | None = None) -> Iterator[tuple[str, str]]:
    """(relative `/`-separated path, absolute path) of every test file (conftest.py aside) under
    `under` (default: the whole `root`), outside virtualenvs, vendored and hidden folders."""
    start = os.path.join(root, under) if under else root
    for path in _python_files(start):
        if os.path.basename(path) != "conftest.py" and is_test_file(path, root):
            yield os.path.relpath(path, root).replace(os.sep, "/"), path


def is_test_support(path: str | os.PathLike, root: str | os.PathLike) -> bool:
    """A file tests lean on that holds no test of its own: a conftest.py, or a module of a
    tests/ folder not named as a test file (helpers, fixtures, __init__)."""
    return _is_support(_relative_parts(path, root))


def test_support_files(root: str) -> Iterator[tuple[str, str]]:
    """(relative `/`-separated path, absolute path) of every test-support file under `root`
    (told by the walk's own folders: no path resolved per file)."""
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in FOREIGN_DIRS and not d.startswith("."))
        rel = os.path.relpath(folder, root)
        parts = () if rel == "." else tuple(rel.split(os.sep))
        for name in sorted(names):
            if _is_support((*parts, name)):
                yield "/".join((*parts, name)), os.path.join(folder, name)


def _is_support(parts: tuple[str, ...]) -> bool:
    name = parts[-1] if parts else ""
    if name == "conftest.py":
        return True
    return (
        name.endswith(".py")
        and not _named_like_a_test(name)
        and not TEST_DIRS.isdisjoint(parts[:-1])
    )


def _python_files(start: str) -> Iterator[str]:
    """`start` itself when it is a file, else the .py files under it, outside virtualenvs,
    vendored and hidden folders, in a stable order."""
    if os.path.isfile(start):
        yield start
        return
    for folder, dirs, names in os.walk(start):
        dirs[:] = sorted(d for d in dirs if d not in FOREIGN_DIRS and not d.startswith("."))
        yield from (os.path.join(folder, name) for name in sorted(names) if name.endswith(".py"))
