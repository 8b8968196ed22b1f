"""The impact map's store: rows from a run, and an edit that invalidates only what it touched.

Runs are written as the plugin reports them (covered functions as "abs_path:first_line"); the
files are real, edited on disk, and the map reads them back."""

from __future__ import annotations

import os
import sqlite3
import threading
import time

import pytest
from heal_ls.impact.store import Function, ImpactMap
from heal_ls.impact.where import map_path
from heal_ls.models import Failure, RunResult
from heal_ls.models import TestOutcome as Outcome

MOD = """\
import functools

LIMIT = 3


def add(a, b):
    return a + b


class Box:
    @functools.lru_cache
    def size(self):
        def inner():
            return LIMIT
        return inner()
"""
OTHER = "def neg(x):\n    return -x\n"
TESTS = "def test_add():\n    pass\n\n\ndef test_size():\n    pass\n\n\ndef test_neg():\n    pass\n"


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(MOD)
    (tmp_path / "pkg" / "other.py").write_text(OTHER)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_mod.py").write_text(TESTS)
    past = time.time() - 10  # the files were saved before the run started
    for path in tmp_path.rglob("*.py"):
        os.utime(path, (past, past))
    return tmp_path


def key(root, rel, line):
    return f"{root / rel}:{line}"


def run_of(root, **outcomes) -> RunResult:
    """A traced run of tests/test_mod.py: test_add ran add, test_size ran Box.size (and its
    inner function), test_neg ran neg; `outcomes` overrides "passed"."""
    covered = {
        "test_add": [key(root, "pkg/mod.py", 6)],
        "test_size": [key(root, "pkg/mod.py", 11), key(root, "pkg/mod.py", 13)],
        "test_neg": [key(root, "pkg/other.py", 1)],
    }
    tests = [
        Outcome(f"tests/test_mod.py::{name}", outcomes.get(name, "passed"), 0.5, covered=keys)
        for name, keys in covered.items()
    ]
    return RunResult(root=str(root), tests=tests, seconds=1.0)


def edit(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    later = time.time() + 5  # a signature that surely moved
    os.utime(path, (later, later))


def nodeids(tests):
    return [t.nodeid for t in tests]


def test_a_run_becomes_rows_by_qualname(project):
    with ImpactMap.open(str(project)) as impact:
        assert impact.record(run_of(project), complete=["tests/test_mod.py"]) == 3
        running = impact.tests_running(Function("pkg/mod.py", "Box.size"))
        assert nodeids(running) == ["tests/test_mod.py::test_size"]
        inner = Function("pkg/mod.py", "Box.size.<locals>.inner")
        assert nodeids(impact.tests_running(inner)) == ["tests/test_mod.py::test_size"]
        assert running[0].duration == 0.5
        assert impact.known(["tests/test_mod.py", "tests/test_x.py"]) == ["tests/test_mod.py"]
        stats = impact.stats()
        assert (stats.rows, stats.functions, stats.tests) == (4, 4, 3)
        assert stats.bytes > 0


def test_editing_one_function_drops_only_its_rows(project):
    with ImpactMap.open(str(project)) as impact:
        impact.record(run_of(project), complete=["tests/test_mod.py"])
        edit(project / "pkg" / "mod.py", "return a + b", "return a - b")
        synced = impact.sync()
        assert (synced.files, synced.functions, synced.tests) == (1, 1, 1)
        assert impact.tests_running(Function("pkg/mod.py", "add")) == []
        assert impact.stale(["tests/test_mod.py"]) == ["tests/test_mod.py::test_add"]
        kept = impact.tests_running(Function("pkg/mod.py", "Box.size"))
        assert nodeids(kept) == ["tests/test_mod.py::test_size"]
        assert impact.stats().rows == 3


def test_editing_another_file_drops_nothing_of_this_one(project):
    with ImpactMap.open(str(project)) as impact:
        impact.record(run_of(project))
        edit(project / "pkg" / "other.py", "return -x", "return 0 - x")
        assert impact.sync().tests == 1
        assert nodeids(impact.tests_running(Function("pkg/mod.py", "add"))) == [
            "tests/test_mod.py::test_add"
        ]
        assert impact.stale(["tests/test_mod.py"]) == ["tests/test_mod.py::test_neg"]


def test_moving_a_function_or_a_comment_keeps_its_rows_with_the_new_line(project):
    with ImpactMap.open(str(project)) as impact:
        impact.record(run_of(project), complete=["tests/test_mod.py"])
        edit(project / "pkg" / "mod.py", "LIMIT = 3\n", "LIMIT = 3\n# a comment\n\n")
        assert impact.sync().functions == 0
        (test,) = [t for t in impact.outcomes(["tests/test_mod.py"]) if t.nodeid.endswith("add")]
        assert test.covered == [key(project, "pkg/mod.py", 8)]


def test_module_code_outside_functions_invalidates_the_whole_module(project):
    with ImpactMap.open(str(project)) as impact:
        impact.record(run_of(project))
        edit(project / "pkg" / "mod.py", "LIMIT = 3", "LIMIT = 4")
        assert impact.sync().functions == 3  # add, Box.size and its inner function
        assert impact.stale(["tests/test_mod.py"]) == [
            "tests/test_mod.py::test_add",
            "tests/test_mod.py::test_size",
        ]


def support(project, rel: str, text: str) -> None:
    """A test-support file saved before the run started, as the project fixture's files are."""
    path = project / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    past = time.time() - 10
    os.utime(path, (past, past))


def test_editing_a_conftest_makes_the_tests_under_its_folder_stale(project):
    """The map records no function of a conftest.py (never a suspect), yet a fixture or a
    module constant there decides what the tests see."""
    support(project, "tests/conftest.py", "OFFSET = 0\n")
    support(project, "tests/deep/conftest.py", "OFFSET = 0\n")
    support(project, "tests/deep/test_deep.py", "def test_deep():\n    pass\n")
    run = run_of(project)
    run.tests.append(Outcome("tests/deep/test_deep.py::test_deep", "passed", 0.1))
    with ImpactMap.open(str(project)) as impact:
        impact.record(run)
        edit(project / "tests" / "deep" / "conftest.py", "OFFSET = 0", "OFFSET = 5")
        assert impact.sync().tests == 1  # only the folder's own test
        assert impact.stale(["tests/test_mod.py"]) == []
        edit(project / "tests" / "conftest.py", "OFFSET = 0", "OFFSET = 5")
        assert impact.sync().tests == 3
        edit(project / "tests" / "conftest.py", "OFFSET = 5", "OFFSET = 5  # why")
        assert impact.sync().tests == 0  # a comment: the same tree


def test_editing_a_test_helper_module_makes_every_test_stale(project):
    support(project, "tests/helpers.py", "def expected(x):\n    return x + 1\n")
    with ImpactMap.open(str(project)) as impact:
        impact.record(run_of(project))
        edit(project / "tests" / "helpers.py", "x + 1", "x + 7")
        impact.sync()
        assert len(impact.stale(["tests/test_mod.py"])) == 3


def test_a_conftest_new_since_the_tests_ran_makes_those_under_it_stale(project):
    with ImpactMap.open(str(project)) as impact:
        impact.record(run_of(project))
        support(project, "tests/conftest.py", "OFFSET = 5\n")
        rerun = run_of(project)
        rerun.tests = rerun.tests[:1]  # the run that saw it: its own test is fresh
        impact.record(rerun)
        assert impact.stale(["tests/test_mod.py"]) == [
            "tests/test_mod.py::test_neg",
            "tests/test_mod.py::test_size",
        ]


def test_a_changed_pytest_configuration_makes_every_test_stale(project):
    support(project, "pytest.ini", "[pytest]\n")
    with ImpactMap.open(str(project)) as impact:
        impact.record(run_of(project))
        assert impact.sync().tests == 0
        edit(project / "pytest.ini", "[pytest]\n", "[pytest]\nfilterwarnings = error\n")
        assert impact.sync().tests == 3
        assert impact.sync().tests == 0  # once


def test_a_support_file_saved_during_the_run_stales_its_tests_at_the_next_sync(project):
    (project / "tests" / "conftest.py").write_text("OFFSET = 5\n")  # saved after the start
    with ImpactMap.open(str(project)) as impact:
        impact.record(run_of(project), started=time.time() - 5)
        assert impact.sync().tests == 3


def test_editing_the_test_file_makes_its_tests_stale_and_its_set_unknown(project):
    with ImpactMap.open(str(project)) as impact:
        impact.record(run_of(project), complete=["tests/test_mod.py"])
        edit(project / "tests" / "test_mod.py", "def test_neg", "def test_negate")
        impact.sync()
        assert impact.known(["tests/test_mod.py"]) == []
        assert len(impact.stale(["tests/test_mod.py"])) == 3


def test_a_rerun_makes_a_stale_test_fresh_again(project):
    with ImpactMap.open(str(project)) as impact:
        impact.record(run_of(project))
        edit(project / "pkg" / "mod.py", "return a + b", "return a - b")
        impact.sync()
        rerun = run_of(project, test_add="failed")
        rerun.tests = rerun.tests[:1]
        impact.record(rerun, started=time.time() + 10)
        assert impact.stale(["tests/test_mod.py"]) == []
        (test,) = impact.touching(Function("pkg/mod.py", "add"))
        assert test.outcome == "failed"
        assert impact.tests_running(Function("pkg/mod.py", "add")) == []


def test_a_file_changed_during_the_run_is_not_recorded(project):
    with ImpactMap.open(str(project)) as impact:
        edit(project / "pkg" / "other.py", "return -x", "return 0 - x")
        assert impact.record(run_of(project), started=time.time() - 5) == 2
        assert impact.tests_running(Function("pkg/other.py", "neg")) == []


def test_timeouts_are_kept_but_are_never_guards(project):
    run = run_of(project)
    failure = Failure(id="t", test="tests/test_mod.py::test_neg", exc_type="Timeout", message="")
    failure.timed_out = True
    run.failures.append(failure)
    run.tests[2].outcome = "failed"
    with ImpactMap.open(str(project)) as impact:
        impact.record(run)
        (test,) = impact.touching(Function("pkg/other.py", "neg"))
        assert test.outcome == "timeout"
        assert "tests/test_mod.py::test_neg" not in nodeids(impact.outcomes(["tests/test_mod.py"]))


def test_outcomes_without_coverage_do_not_make_rows(project):
    with ImpactMap.open(str(project)) as impact:
        impact.record(run_of(project), traced=False)
        assert impact.stats().rows == 0
        assert len(impact.stale(["tests/test_mod.py"])) == 3  # known outcomes, rows unknown


def test_two_writers_share_one_map(project):
    first, second = ImpactMap.open(str(project)), ImpactMap.open(str(project))
    try:
        assert first.path == second.path
        first.record(run_of(project))
        assert second.stats().tests == 3
    finally:
        first.close()
        second.close()


def test_each_interpreter_has_its_own_map(project, tmp_path):
    venv = str(tmp_path / "venv" / "bin" / "python")
    with (
        ImpactMap.open(str(project), "/usr/bin/python3") as one,
        ImpactMap.open(str(project), venv) as two,
    ):
        assert one.path != two.path


def test_a_rerun_of_unchanged_files_takes_them_from_the_map_not_from_disk(project, monkeypatch):
    """A new process (nothing read yet) re-recording the same run reads no file again; only a
    function the map has no row for yet makes its file be read."""
    from heal_ls.impact import fingerprints, record

    with ImpactMap.open(str(project)) as impact:
        impact.record(run_of(project), complete=["tests/test_mod.py"])
    read: list[str] = []

    def counted(path):
        read.append(os.path.relpath(path, project))
        return fingerprints.file_functions(path)

    monkeypatch.setattr(fingerprints, "_read", {})
    monkeypatch.setattr(record, "file_functions", counted)
    with ImpactMap.open(str(project)) as impact:
        impact.record(run_of(project), complete=["tests/test_mod.py"])
        assert read == []
        rerun = run_of(project)
        rerun.tests[0].covered.append(key(project, "pkg/mod.py", 11))  # Box.size, no row for add
        rerun.tests[2].covered = [key(project, "pkg/mod.py", 6)]  # add: test_neg's new row
        impact.record(rerun)
        assert read == []  # both functions have rows: nothing read
        assert nodeids(impact.tests_running(Function("pkg/mod.py", "add"))) == [
            "tests/test_mod.py::test_add",
            "tests/test_mod.py::test_neg",
        ]
        odd = run_of(project)
        odd.tests[0].covered.append(key(project, "pkg/mod.py", 1))  # no row: not a function
        impact.record(odd)
        assert read == ["pkg/mod.py"]


def test_a_rerun_writes_only_the_rows_that_changed(project):
    """Recording the same run again rewrites no test's rows (a re-check of one test file wrote
    every test's ~60 rows again); a test that ran another function gets exactly its new set."""
    with ImpactMap.open(str(project)) as impact:
        impact.record(run_of(project), complete=["tests/test_mod.py"])
        written: list[str] = []
        impact.db.set_trace_callback(written.append)
        impact.record(run_of(project), complete=["tests/test_mod.py"])
        assert [
            s
            for s in written
            if s.lstrip().startswith(("DELETE", "INSERT OR IGNORE INTO runs", "UPDATE functions"))
        ] == []
        rerun = run_of(project)
        rerun.tests[2].covered = [key(project, "pkg/mod.py", 6)]  # test_neg: add, not neg
        impact.record(rerun)
        impact.db.set_trace_callback(None)
        assert nodeids(impact.tests_running(Function("pkg/mod.py", "add"))) == [
            "tests/test_mod.py::test_add",
            "tests/test_mod.py::test_neg",
        ]
        assert impact.tests_running(Function("pkg/other.py", "neg")) == []
        assert impact.stats().rows == 4


def test_each_block_goes_to_the_innermost_function_holding_it(project):
    """test_size ran Box.size (lines 11-15, its decorator first) and the inner def in it
    (13-14): line 14 is the inner function's block, 15 Box.size's, and recall gives back both
    lines; a block in no function the test ran leaves the test's blocks unkept (not vouched)."""
    mod = str(project / "pkg" / "mod.py")
    run = run_of(project)
    for test in run.tests:
        test.blocks = {}
    run.tests[1].blocks = {mod: [14, 15]}
    with ImpactMap.open(str(project)) as impact:
        impact.record(run, complete=["tests/test_mod.py"])
        rows = dict(
            impact.db.execute(
                "SELECT f.qualname, r.blocks FROM runs r JOIN functions f ON f.id = r.function "
                "JOIN tests t ON t.id = r.test WHERE t.nodeid LIKE '%test_size'"
            )
        )
        assert rows == {"Box.size": "4", "Box.size.<locals>.inner": "1"}
        (size,) = impact.recall(["tests/test_mod.py::test_size"]) or []
        assert sorted(size.blocks[mod]) == [14, 15]
        run.tests[1].blocks = {mod: [14, 15, 17]}  # 17: past every function of the file
        impact.record(run, complete=["tests/test_mod.py"])
        assert impact.recall(["tests/test_mod.py::test_size"]) is None


def test_a_run_works_out_each_files_relative_path_once(project, monkeypatch):
    """Every test's coverage keys and blocks name mostly the same files: each one's path
    relative to the root is worked out once a run, not once a test and file."""
    from heal_ls.impact import record

    mod, other = str(project / "pkg" / "mod.py"), str(project / "pkg" / "other.py")
    run = run_of(project)
    run.tests[0].blocks = {mod: [7]}
    run.tests[1].blocks = {mod: [14, 15]}
    run.tests[2].blocks = {other: [2]}
    asked: list[str] = []
    real = os.path.relpath

    def relpath(path, start=os.curdir):
        asked.append(path)
        return real(path, start)

    monkeypatch.setattr(record.os.path, "relpath", relpath)
    with ImpactMap.open(str(project)) as impact:
        impact.record(run, complete=["tests/test_mod.py"])
        monkeypatch.undo()
        assert sorted(p for p in asked if p.endswith(".py")) == [mod, other]
        rows = impact.db.execute("SELECT blocks FROM runs WHERE blocks != ''").fetchall()
        assert sorted(blocks for (blocks,) in rows) == ["1", "1", "1", "4"]


def test_a_key_many_tests_ran_is_resolved_once_a_run(project, monkeypatch):
    """Every test of a file names mostly the same functions: a coverage key is resolved to its
    function (the file's line, the map's id) once a run; the other tests' rows are the same."""
    from heal_ls.impact import fingerprints

    run = run_of(project)
    for test in run.tests:
        test.covered = [key(project, "pkg/mod.py", 6), key(project, "pkg/other.py", 1)]
    asked: list[int] = []
    real = fingerprints.FileFunctions.at_line

    def at_line(self, line):
        asked.append(line)
        return real(self, line)

    monkeypatch.setattr(fingerprints.FileFunctions, "at_line", at_line)
    with ImpactMap.open(str(project)) as impact:
        assert impact.record(run, complete=["tests/test_mod.py"]) == 3
        assert sorted(asked) == [1, 6]
        for function in (Function("pkg/mod.py", "add"), Function("pkg/other.py", "neg")):
            assert sorted(nodeids(impact.tests_running(function))) == sorted(nodeids(run.tests))


def test_last_ran_names_what_the_tests_ran_at_the_lines_they_are_at_now(project):
    """What a re-check of test_size will likely read (locate/prefetch): its functions, where
    they are now (a comment and a blank line added above them), and nothing of the other tests'."""
    with ImpactMap.open(str(project)) as impact:
        impact.record(run_of(project))
        edit(project / "pkg" / "mod.py", "LIMIT = 3\n", "LIMIT = 3\n# a comment\n\n")
        impact.sync()
        ran = impact.last_ran(["tests/test_mod.py::test_size"])
    assert ran == [key(project, "pkg/mod.py", 13), key(project, "pkg/mod.py", 15)]


def test_a_first_open_waits_for_another_connection_making_the_map(project):
    """Two first opens of one map at once (a run's record in its thread, the locating that reads
    the map meanwhile): sqlite refuses the second one's change to WAL mode at once while the
    first holds its write lock, without the busy timeout (the record was lost in CI: "database
    is locked"). The open waits for that writer, as it waits for any other."""
    path = map_path(str(project), None)
    path.parent.mkdir(parents=True, exist_ok=True)
    other = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # a new file, not yet WAL, being made by another
    other.execute("CREATE TABLE making(x)")
    done = threading.Timer(0.3, other.execute, ("COMMIT",))
    done.start()
    try:
        with ImpactMap.open(str(project)) as impact:
            assert impact.db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    finally:
        done.join()
        other.close()


SETTER = """\
class Box:
    @property
    def size(self):
        return self._size

    @size.setter
    def size(self, value):
        if value < 0:
            value = 0
        self._size = value
"""


def test_a_test_that_ran_a_setter_keeps_its_rows_and_blocks(project):
    """The setter is a second def of `Box.size` (so is an implementation after @overload
    stubs): a run names it by its own first line (6), and the map gives the test back with that
    key and the setter's blocks. The map knew only the getter's line: the setter's key named no
    function, so the test kept neither the row nor its blocks, and a run borrowing it as
    contrast counted the setter as run by no passing test."""
    path = project / "pkg" / "box.py"
    path.write_text(SETTER)
    past = time.time() - 10
    os.utime(path, (past, past))
    box = str(path)
    run = RunResult(root=str(project), seconds=1.0)
    run.tests = [
        Outcome(
            "tests/test_mod.py::test_add", "passed", 0.5, covered=[f"{box}:6"], blocks={box: [9]}
        )
    ]
    with ImpactMap.open(str(project)) as impact:
        impact.record(run, complete=["tests/test_mod.py"])
        assert nodeids(impact.tests_running(Function("pkg/box.py", "Box.size"))) == [
            "tests/test_mod.py::test_add"
        ]
        [test] = impact.passing(["tests/test_mod.py::test_add"])
        assert (test.covered, test.blocks) == ([f"{box}:2", f"{box}:6"], {box: [9]})
