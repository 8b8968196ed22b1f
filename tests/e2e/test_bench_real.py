"""`heal-ls bench --real` end to end on a tiny corpus built here (no network): the pinned
tarball is unpacked, the commit's test part makes the new test fail, --verify proves which bug
reproduces, and the bench checks, ranks and heals it, then re-runs the regression tests;
the corpus runner reads each test's outcome from pytest's JUnit report."""

import sys
from textwrap import dedent

import pytest
from heal_ls.bench import corpus
from heal_ls.cli import main
from helpers.corpus import build_corpus

pytestmark = pytest.mark.e2e


def test_verify_names_the_bug_that_does_not_reproduce(tmp_path, capsys):
    corpus, cache = build_corpus(tmp_path)
    code = main(["bench", "--real", "--verify", "--corpus", str(corpus), "--cache", str(cache)])
    out = capsys.readouterr().out
    assert code == 1
    lines = {line.split()[0]: line for line in out.splitlines()[:-1]}
    assert "reproduces" in lines["tiny-good"]
    assert "test_nineteen is PASSED before the fix, not FAILED" in lines["tiny-bad"]
    assert out.splitlines()[-1] == "1/2 bugs reproduce"
    assert main(["bench", "--real", "--verify", "--corpus", str(corpus), "--cache", str(cache),
                 "--round", "1"]) == 0  # fmt: skip
    assert capsys.readouterr().out.splitlines() == [
        f"{'tiny-good':36} reproduces",
        "1/1 bugs reproduce",
    ]


def test_verify_reads_the_bugs_where_a_miner_keeps_them(tmp_path, capsys):
    # mine.py --out keeps its finds outside the repository; the corpus gives the projects
    corpus, cache = build_corpus(tmp_path)
    kept = tmp_path / "mined"
    kept.mkdir()
    (corpus / "bugs/tiny-good").rename(kept / "tiny-good")
    args = ["bench", "--real", "--verify", "--corpus", str(corpus), "--cache", str(cache)]
    assert main([*args, "--bugs", str(kept)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{'tiny-good':36} reproduces",
        "1/1 bugs reproduce",
    ]
    assert main([*args, "--only", "tiny-good"]) == 2  # not in the corpus's own folder
    assert "no such bug(s) or project(s): tiny-good" in capsys.readouterr().err


def test_bench_real_checks_ranks_heals_and_writes_the_table(tmp_path, capsys):
    corpus, cache = build_corpus(tmp_path)
    results = tmp_path / "RESULTS.md"
    results.write_text("old\n<!-- kept: start -->\nhand-written table\n<!-- kept: end -->\n")
    args = ["bench", "--real", "--corpus", str(corpus), "--cache", str(cache)]
    assert main([*args, "--results", str(results)]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = {line.split(" | ")[0].lstrip("| "): line for line in out if line.startswith("| ")}
    good = [cell.strip() for cell in rows["tiny-good"].strip("|").split("|")]
    # bug, check ran, rank, top-1, top-3, listed, pytest s, pytest file s, check s, ratio,
    # ratio to pytest of the file, fix, breaks
    assert good[1:6] == ["yes", "1", "yes", "yes", "yes"]
    assert float(good[7]) > 0 and good[10].endswith("x")
    assert good[11:] == ["verified", "0"]
    assert "does not reproduce" in rows["tiny-bad"]
    rounds = [line.split("**")[1] for line in out if line.startswith("| **round")]
    assert rounds == ["round 1: 1 of 1 bugs, 1 projects", "round 2: 0 of 1 bugs, 1 projects"]
    (total,) = [line for line in out if line.startswith("| **all")]
    assert total.startswith("| **all 1 of 2 bugs, 1 projects** | 1/1 | | 1/1 | 1/1 | 1/1 |")
    assert "| 1/1 verified | 0 |" in total
    assert out[-1] == "| tiny | 2 | 1.0 | 3 |"  # the suite's size, collected: 2 tests + 1 new
    page = results.read_text()
    assert page.startswith("# Real-bug corpus results") and total in page and out[-1] in page
    assert "tiny-bad: does not reproduce" in page
    # the repairer's section: the verified fix is the reference fix; what each operator cost
    section = page.split("## Local repairer on real fixes", 1)[1]
    assert "**1 verified, 1 of them correct** (1 equal to the reference fix" in section
    assert "| tiny-good | 1 | compare | equal |" in section
    (compare,) = [line for line in section.splitlines() if line.startswith("| compare |")]
    assert compare.endswith("| 1 | 1 |")  # one fix verified, on one bug
    assert "<!-- kept: start -->\nhand-written table\n<!-- kept: end -->" in section
    assert "old" not in page.splitlines()


def test_check_only_ranks_without_healing(tmp_path, capsys):
    corpus, cache = build_corpus(tmp_path)
    args = ["bench", "--real", "--check-only", "--corpus", str(corpus), "--cache", str(cache)]
    assert main([*args, "--only", "tiny-good"]) == 0
    out = capsys.readouterr().out.splitlines()
    (good,) = [line for line in out if line.startswith("| tiny-good |")]
    cells = [cell.strip() for cell in good.strip("|").split("|")]
    assert cells[1:6] == ["yes", "1", "yes", "yes", "yes"]
    assert cells[11:] == ["-", "0"]  # no fix ran


def test_unknown_bugs_and_a_missing_or_malformed_corpus_are_one_line_errors(tmp_path, capsys):
    corpus, cache = build_corpus(tmp_path)
    args = ["bench", "--real", "--corpus", str(corpus), "--cache", str(cache)]
    assert main([*args, "--only", "nope"]) == 2
    assert "no such bug(s) or project(s): nope" in capsys.readouterr().err
    bug = corpus / "bugs/tiny-good/bug.json"
    kept = bug.read_text()
    bug.write_text(kept.replace('"version": "1.0"', '"version": 1.0'))
    assert main(args) == 2
    assert capsys.readouterr().err == (
        f"heal-ls bench: {bug}: malformed: Bug.version: expected str, got a number (1.0)\n"
    )
    bug.write_text(kept)
    (corpus / "projects.json").unlink()
    assert main(args) == 2
    assert "projects.json" in capsys.readouterr().err


def test_outcomes_come_from_pytests_junit_report_ids_with_spaces_included(tmp_path):
    (tmp_path / "tests" / "sub").mkdir(parents=True)
    (tmp_path / "tests" / "sub" / "test_a.py").write_text(
        dedent(
            """\
            import pytest


            def test_one():
                pass


            class TestSuite:
                class TestInner:
                    def test_deep(self):
                        assert 0

                @pytest.mark.parametrize("x", [1, 2], ids=["a b", "c.d"])
                def test_two(self, x):
                    assert x == 1


            @pytest.mark.xfail
            def test_xfail():
                assert 0
            """
        )
    )
    (tmp_path / "tests" / "test_b.py").write_text("import not_a_module_anywhere\n")
    tiny = corpus.Project("tiny", ".", (), ())
    found = corpus.run_tests(sys.executable, tiny, tmp_path, ["tests/sub"])
    assert found == {
        "tests/sub/test_a.py::test_one": "PASSED",
        "tests/sub/test_a.py::TestSuite::TestInner::test_deep": "FAILED",
        "tests/sub/test_a.py::TestSuite::test_two[a b]": "PASSED",
        "tests/sub/test_a.py::TestSuite::test_two[c.d]": "FAILED",
        "tests/sub/test_a.py::test_xfail": "XFAIL",
    }
    broken = corpus.run_tests(sys.executable, tiny, tmp_path, ["tests/test_b.py"])
    assert broken == {"tests/test_b.py": "ERROR"}
