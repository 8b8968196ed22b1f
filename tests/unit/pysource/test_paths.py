"""Which files are tests, and which are the code tests lean on (the impact map stales on them)."""

import pytest
from heal_ls.pysource import paths

TREE = {
    "conftest.py": True,
    "pkg/mod.py": False,
    "pkg/conftest.py": True,
    "pkg/tests/__init__.py": True,
    "pkg/tests/helpers.py": True,
    "pkg/tests/test_mod.py": False,
    "pkg/tests/mod_test.py": False,
    "tests/data/fixtures.py": True,
    "tests/data/notes.txt": False,
    ".venv/lib/tests/helpers.py": False,  # someone else's code
}


@pytest.fixture
def project(tmp_path):
    for rel in TREE:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    return tmp_path


def test_the_walk_and_the_one_file_question_agree_on_what_supports_tests(project):
    walked = [rel for rel, _ in paths.test_support_files(str(project))]
    assert set(walked) == {rel for rel, support in TREE.items() if support}
    for rel, support in TREE.items():
        if not rel.startswith(".venv"):
            assert paths.is_test_support(project / rel, project) == support, rel


def test_support_files_are_no_test_files(project):
    tests = {rel for rel, _ in paths.test_files(str(project))}
    assert {"pkg/tests/test_mod.py", "pkg/tests/mod_test.py"} <= tests
    assert "conftest.py" not in tests and "pkg/conftest.py" not in tests
