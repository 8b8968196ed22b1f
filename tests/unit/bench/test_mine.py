"""benchmarks/corpus/mine.py's pure parts: which paths of a commit are tests, which tags are
releases (the miner is a maintainer's script, loaded from its file)."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.version import Version

MINE = Path(__file__).parents[3] / "benchmarks" / "corpus" / "mine.py"


@pytest.fixture(scope="module")
def mine():
    spec = importlib.util.spec_from_file_location("corpus_mine", MINE)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "path",
    [
        "tests/test_x.py",
        "test/helpers.py",
        "pint/testsuite/helpers.py",
        "ropetest/refactor/__init__.py",
        "yapftests/yapf_test_helper.py",
        "src/icalendar/tests/prop/test_x.py",
        "mako/testing/fixtures.py",
        "lib/test_parse.py",
    ],
)
def test_test_folders_and_files_are_tests(mine, path):
    assert mine.TEST_PATH.search(path)


@pytest.mark.parametrize(
    "path", ["pint/testing.py", "src/dotenv/main.py", "h11/_events.py", "autopep8.py"]
)
def test_library_code_is_not_a_test(mine, path):
    assert not mine.TEST_PATH.search(path)


def test_release_tags_with_underscores_are_versions(mine, tmp_path):
    repo = str(tmp_path)
    subprocess.run(["git", "init", "-q", repo], check=True)
    git = ["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "one"], check=True)
    for tag in ["rel_1_2_0", "rel_1_10_1", "rel_1_3_0b1", "notes"]:
        subprocess.run([*git, "tag", tag], check=True)
    found = mine.releases(repo, "rel_")
    assert found == [(Version("1.2.0"), "rel_1_2_0"), (Version("1.10.1"), "rel_1_10_1")]


def test_tests_that_run_too_long_skip_the_commit(mine, tmp_path, monkeypatch):
    (tmp_path / "test_slow.py").write_text(
        "import time\n\ndef test_slow():\n    time.sleep(30)\n", encoding="utf-8"
    )
    project = mine.corpus.Project("slow", deps=())
    monkeypatch.setattr(mine, "TEST_TIMEOUT", 1)
    assert mine.before_and_after(sys.executable, project, tmp_path, tmp_path, []) is None


def test_a_changed_test_file_that_is_not_python_skips_the_commit(mine, tmp_path):
    # pycodestyle's testing/data/E10.py: a case file broken on purpose, read by another test
    pristine, buggy = tmp_path / "pristine", tmp_path / "buggy"
    for root, text in [(pristine, "if True:\nTrue\n"), (buggy, "if True:\nTrue and\tFalse\n")]:
        (root / "testing" / "data").mkdir(parents=True)
        (root / "testing" / "data" / "E10.py").write_text(text, encoding="utf-8")
    patch = (
        "diff --git a/testing/data/E10.py b/testing/data/E10.py\n"
        "--- a/testing/data/E10.py\n+++ b/testing/data/E10.py\n"
        "@@ -1,2 +1,2 @@\n if True:\n-True\n+True and\tFalse\n"
    )
    assert mine.changed_test_names(pristine, buggy, patch) is None


def test_a_commit_with_a_file_not_in_utf8_is_skipped(mine, tmp_path):
    # pycodestyle's testing/data holds a latin-1 case file; a diff is kept as text
    repo = str(tmp_path)
    subprocess.run(["git", "init", "-q", repo], check=True)
    git = ["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"]
    (tmp_path / "lib.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_lib.py").write_bytes(b"# \xdf\ndef test_f():\n    pass\n")
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one"], check=True)
    sha = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    assert mine.split_commit(repo, sha.strip()) is None


def test_a_fix_cherry_picked_onto_another_branch_is_not_a_second_bug(mine):
    from heal_ls.bench import corpus

    def bug(sha: str, source: str) -> corpus.Bug:
        return corpus.Bug(
            f"cal-{sha}", "cal", "1.0", "0" * 64, sha, "u", ("t",), ("f",), 12, source, "test"
        )

    saved = [bug("aaaa", "fix"), bug("bbbb", "another fix")]
    assert mine.saved_twin(bug("cccc", "fix"), saved) == "cal-aaaa"
    assert mine.saved_twin(bug("cccc", "a third fix"), saved) is None
    assert mine.saved_twin(saved[0], saved) is None  # itself, saved again


def test_a_commit_kept_by_an_earlier_run_is_skipped_not_kept_again(mine):
    tornado = mine.saved_bugs("tornado")
    sha = tornado[0].commit
    assert mine.already_saved("tornado", sha, tornado)
    assert not mine.already_saved("tornado", "f" * 40, tornado)
    assert not mine.already_saved("cal", sha, tornado)  # the same commit, another project


def test_a_project_new_to_the_corpus_has_no_saved_bugs_yet(mine):
    assert mine.saved_bugs("a-project-not-in-the-corpus") == []
    tornado = mine.saved_bugs("tornado")
    assert tornado and {bug.project for bug in tornado} == {"tornado"}


def test_bugs_kept_outside_the_repository_count_as_saved(mine, tmp_path):
    # a landing's tests read benchmarks/corpus/bugs/: a miner keeps its finds elsewhere (--out)
    from heal_ls.bench import corpus

    args = ["repo", "cal", "--github", "o/cal", "--round", "17"]
    assert mine.arguments(args).out == corpus.BUGS  # as before: the corpus's own folder
    out = mine.arguments([*args, "--out", str(tmp_path / "kept")]).out
    assert out == tmp_path / "kept"
    assert mine.saved_bugs("cal", out) == []  # not made yet: nothing saved
    found = corpus.Bug("cal-aaaa", "cal", "1.0", "0" * 64, "aaaa", "u", ("t",), ("f",), 17, "", "")
    corpus.save_bug(found, out)
    assert mine.saved_bugs("cal", out) == [found]
    assert mine.saved_bugs("cal") == []  # the corpus's folder untouched
    assert mine.already_saved("cal", "aaaa", mine.saved_bugs("cal", out))
    tornado = mine.saved_bugs("tornado", out)  # the corpus's bugs are still seen
    assert tornado == mine.saved_bugs("tornado")
