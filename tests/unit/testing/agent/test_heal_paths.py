"""The agent's path rules: a file's real path, its folder resolved once for all its files."""

import os
import sys

from heal_ls.pysource import paths
from heal_ls.testing.prestart import PLUGIN_DIR

sys.path.insert(0, PLUGIN_DIR)
import heal_paths  # noqa: E402


def test_real_paths_are_realpaths_through_linked_folders_and_files(tmp_path, monkeypatch):
    """The same answer as os.path.realpath for a file in a linked folder, a linked file, a link
    to a link, a `..` after a link and a relative path (the folder of each is asked once)."""
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "other").mkdir()
    for name in ("pkg/mod.py", "pkg/sub/deep.py", "other/target.py"):
        (tmp_path / name).write_text("x = 1\n")
    (tmp_path / "linked").symlink_to(tmp_path / "pkg")
    (tmp_path / "pkg" / "alias.py").symlink_to(tmp_path / "other" / "target.py")
    (tmp_path / "pkg" / "alias2.py").symlink_to("alias.py")  # relative, to a link
    (tmp_path / "up").symlink_to(tmp_path / "pkg" / "sub")
    monkeypatch.chdir(tmp_path)
    paths = heal_paths.WorkspacePaths(str(tmp_path))
    asked = [
        tmp_path / "pkg" / "mod.py",
        tmp_path / "linked" / "mod.py",
        tmp_path / "linked" / "sub" / "deep.py",
        tmp_path / "linked" / "alias.py",
        tmp_path / "pkg" / "alias2.py",
        tmp_path / "up" / ".." / "mod.py",
        "linked/sub/deep.py",
        tmp_path / "linked" / "missing.py",
    ]
    for path in asked:
        assert paths.real(str(path)) == os.path.realpath(path), path
    assert paths.real(str(tmp_path / "linked" / "alias.py")).endswith("other/target.py")


def test_a_package_module_named_like_a_test_that_defines_none_is_code(tmp_path):
    """trio's `src/trio/testing/_trio_test.py` (the `@trio_test` decorator): the recorder
    records its functions as code, as the ranking's TestFiles does; a module of the same name
    with a test at its top level, or under tests/, or one pytest collected from stays a test."""
    package = tmp_path / "src" / "pkg" / "testing"
    package.mkdir(parents=True)
    helper = package / "_pkg_test.py"
    helper.write_text("def pkg_test(fn):\n    return fn\n")
    real_test = package / "test_real.py"
    real_test.write_text("def test_one():\n    assert True\n")
    (tmp_path / "tests").mkdir()
    in_tests = tmp_path / "tests" / "helper_test.py"
    in_tests.write_text("X = 1\n")
    collected = package / "check_test.py"
    collected.write_text("X = 1\n")
    unittest_case = package / "case_test.py"  # pytest collects a TestCase whatever its name
    unittest_case.write_text("import unittest\nclass case(unittest.TestCase):\n    pass\n")
    paths = heal_paths.WorkspacePaths(str(tmp_path))
    paths.collects_tests(str(collected))
    assert paths.is_code(str(helper))
    assert not paths.is_code(str(real_test))
    assert not paths.is_code(str(in_tests))
    assert not paths.is_code(str(collected))
    assert not paths.is_code(str(unittest_case))
    assert paths.is_test_file(str(tmp_path / "src" / "pkg" / "conftest.py"))
    assert paths.is_test_file(str(package / "test_gone.py"))  # unreadable: its name decides


def test_the_agent_knows_a_test_module_as_the_ranking_does():
    """The recorder's copy of the pattern (it imports nothing of heal_ls) is the ranking's."""
    assert heal_paths.TOP_LEVEL_TEST == paths.TOP_LEVEL_TEST
