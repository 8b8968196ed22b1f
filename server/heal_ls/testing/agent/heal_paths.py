"""Which files are the workspace's code and which its tests, by path (and, for a package
module named like a test, whether it defines one).

Stdlib only, and imports nothing of pytest: a Python process a test starts records with these
rules (agent/sitecustomize.py), and it may be an interpreter without pytest.
"""

import os

# pysource.paths.TOP_LEVEL_TEST, copied: the agent imports nothing of heal_ls (a unit test
# keeps the two equal)
TOP_LEVEL_TEST = r"(?m)^(?:(?:async\s+)?def\s+test|class\s+Test|class\s+\w+\([^)]*TestCase[^)]*\))"
NOT_WORKSPACE_DIRS = {"site-packages", "dist-packages", ".venv", "venv", ".tox", ".nox", ".git"}


class WorkspacePaths:
    """Which files are workspace code or test code."""

    def __init__(self, root, rootdir=None):
        self.root = os.path.realpath(root) + os.sep
        self.roots = (self.root, os.path.abspath(root) + os.sep)
        self.rootdir = rootdir or root
        self._real = {}
        self._inside = {}
        self._defines_tests = {}
        self.collected = set()  # relative paths of the files pytest collects tests from

    def collects_tests(self, path):
        """pytest collects tests from `path` (a Module collector): a test file whatever its name,
        as the project's own `python_files` said (rope's `*test.py`). Only where pytest collects:
        the same patterns elsewhere (`__init__.py`) name code."""
        relative = self.relative(path)
        if relative is not None:
            self.collected.add(relative)

    def real(self, path):
        """os.path.realpath(path), its folder's resolved once: an import of networkx asks of
        ~350 files in ~60 folders, and realpath stats every part of every path."""
        real = self._real.get(path)
        if real is None:
            folder, name = os.path.split(path)
            if not folder or name in ("", os.curdir, os.pardir):
                real = os.path.realpath(path)
            else:
                real = os.path.join(self.real(folder), name)
                if os.path.islink(real):
                    real = os.path.realpath(real)
            self._real[path] = real
        return real

    def relative(self, path):
        """`path` relative to the root, or None outside it. A module reached through a link
        in the workspace is the workspace's, wherever the link points (its real path first)."""
        if path not in self._inside:
            found = None
            for candidate in (self.real(path), os.path.abspath(path)):
                root = next((r for r in self.roots if candidate.startswith(r)), None)
                if root is not None:
                    found = candidate[len(root) :]
                    break
            self._inside[path] = found
        return self._inside[path]

    def is_workspace(self, path):
        if path.startswith("<"):  # <string>, <frozen os>, <stdin>: not files
            return False
        relative = self.relative(path)
        if relative is None:
            return False
        return not NOT_WORKSPACE_DIRS.intersection(relative.split(os.sep))

    def is_code(self, path):
        """A workspace file outside the tests: its functions are what the recorder records."""
        return self.is_workspace(path) and not self.is_test_file(path)

    def is_test_file(self, path):
        """As the ranking's `pysource.paths.TestFiles` says: a file pytest collected from, a
        conftest.py, any file under a tests/ folder, or one named like a test (test_*, *_test.py)
        unless it is a package module that defines no test (trio's `testing/_trio_test.py`,
        the `@trio_test` decorator): pytest collects nothing from it, so it is code, and the
        frames of the decorator it defines must not stand for the test's."""
        relative = self.relative(path) or ""
        if relative in self.collected:
            return True
        name = os.path.basename(path)
        parts = relative.split(os.sep)[:-1]
        if name == "conftest.py" or "tests" in parts or "test" in parts:
            return True
        if name.startswith("test_") or name.endswith("_test.py"):
            return self.defines_tests(path)
        return False

    def defines_tests(self, path):
        """A test at the module's top level (`def test*`, `class Test*`, a TestCase); an unreadable file
        keeps its name's verdict (a test)."""
        found = self._defines_tests.get(path)
        if found is None:
            import re  # lazy: only a module named like a test outside tests/ reads this

            try:
                with open(path, encoding="utf-8", errors="replace") as source:
                    text = source.read()
            except OSError:
                found = True
            else:
                found = re.search(TOP_LEVEL_TEST, text) is not None
            self._defines_tests[path] = found
        return found
