"""Which files of a folder hold tests, for the runs a file asks for (its own tests on save,
"run this file's tests"): those the folder's runs took tests from, those the impact map holds
tests of (an earlier session's, `heal-ls check` or `index`), the name rule, and a module that
defines a test at its top level (pytest collects a file named on its command line whatever
`python_files` says). A project's own python_files (`checks/*check.py`) is known by its runs,
never by matching its patterns here."""

from __future__ import annotations

from heal_ls.impact.store import known_test_files
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.pysource.paths import TestFiles, defines_tests


def test_files(folder: Folder) -> TestFiles:
    """The files the folder's runs and its impact map know hold tests (and the name rule)."""
    known = set(folder.state.test_paths)
    known.update(known_test_files(folder.root, folder.settings.python))
    return TestFiles(folder.root, known)


def holds_tests(folder: Folder, path: str) -> bool:
    """Does running `path` run tests of its own?"""
    return path in test_files(folder) or defines_tests(path)
