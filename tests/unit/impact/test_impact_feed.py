"""Which test files a run of the original code takes whole (their test set becomes known)."""

from __future__ import annotations

from heal_ls.impact.feed import whole_files
from heal_ls.impact.where import selects


def test_whole_files_are_the_files_and_folders_named_or_the_whole_suite(tmp_path):
    for rel in ("tests/test_a.py", "tests/sub/test_b.py", "tests/conftest.py", "pkg/mod.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    root = str(tmp_path)
    assert sorted(whole_files(root, None)) == ["tests/sub/test_b.py", "tests/test_a.py"]
    assert whole_files(root, ["tests/sub"]) == ["tests/sub/test_b.py"]
    assert whole_files(root, ["tests/test_a.py", "tests/test_a.py::test_x"]) == ["tests/test_a.py"]
    assert whole_files(root, ["tests/test_a.py::test_x"]) == []


def test_options_that_run_fewer_tests_make_no_file_whole():
    assert selects(["-k", "fast"]) and selects(["-kfast"]) and selects(["--lf"])
    assert selects(["--deselect=tests/test_a.py::t"]) and selects(["-x"])
    assert not selects(["-p", "no:randomly", "--heal-exclude", "tests/test_a.py::t", "-q"])
