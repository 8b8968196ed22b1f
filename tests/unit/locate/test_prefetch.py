"""Reading ahead while the tests run (locate/prefetch.py): the files a report row names are
fingerprinted for the map, and indexed for ranking when the row is a failure."""

from __future__ import annotations

import time

from heal_ls.impact.store import ImpactMap
from heal_ls.locate import prefetch
from heal_ls.locate.index import index_file
from heal_ls.models import RunResult
from heal_ls.models import TestOutcome as Outcome
from heal_ls.testing.agent import heal_protocol as wire
from heal_ls.testing.report import files_named


def finish(ahead: prefetch.Prefetch) -> None:
    """Let the worker take everything queued, then stop it (stop alone drops what is queued)."""
    while not ahead.todo.empty():
        time.sleep(0.01)
    ahead.stop()


def line(outcome: str, path: str, covered: list[str], failure: wire.FailureRecord | None = None):
    return wire.TestLine("test_m.py::test_f", outcome, 0.0, path, 1, covered, failure, "")


def test_rows_make_the_worker_read_their_files_once(tmp_path, monkeypatch):
    read: list[tuple[str, str]] = []
    monkeypatch.setattr(prefetch, "file_functions", lambda path: read.append(("print", path)))
    monkeypatch.setattr(prefetch, "index_file", lambda path: read.append(("index", path)))
    mod, other, test = (str(tmp_path / name) for name in ("mod.py", "other.py", "test_m.py"))
    for path in (mod, other, test):
        open(path, "w").close()
    ahead = prefetch.Prefetch(str(tmp_path), None)
    seen: list[wire.ReportLine] = []
    handle = ahead.wrap(seen.append, files_named)
    passing = line("passed", test, [f"{mod}:1"])
    frames = [wire.FrameRecord(other, 1, "f"), wire.FrameRecord("/usr/lib/python3/json.py", 1, "g")]
    failure = wire.FailureRecord("test_m.py::test_f", "KeyError", "'k'", frames)
    failing = line("failed", test, [f"{mod}:1"], failure)
    for row in (passing, passing, failing):
        handle(row)
    finish(ahead)
    assert seen == [passing, passing, failing]  # the caller's handler sees every row
    assert sorted(read) == sorted(
        [("print", test), ("print", mod)]  # the passing row: fingerprints only
        + [("print", test), ("index", test), ("print", mod), ("index", mod)]
        + [("print", other), ("index", other)]  # not the standard library's file
        + [("index", mod)]  # the calls of the function the failed test ran, from its index
    )


def test_the_calls_of_the_functions_a_failed_test_ran_are_read_ahead(tmp_path):
    """The ranking reads which names each function a failing test ran calls (a callee a cache
    kept from running: locate/cached.py); the worker reads them while the tests run, for the
    failed test's functions only (not a passing test's, not the test file's)."""
    (tmp_path / "mod.py").write_text(
        "def ran():\n    return helper(1) + other.attr\n\n\n"
        "def passing_only():\n    return helper(2)\n\n\n"
        "def helper(x):\n    return x\n"
    )
    (tmp_path / "test_m.py").write_text("def test_f():\n    assert ran() == 2\n")
    mod, test = str(tmp_path / "mod.py"), str(tmp_path / "test_m.py")
    ahead = prefetch.Prefetch(str(tmp_path), None)
    handle = ahead.wrap(None, files_named)
    handle(line("passed", test, [f"{mod}:5", f"{mod}:9"]))
    failure = wire.FailureRecord("test_m.py::test_f", "AssertionError", "", [])
    handle(line("failed", test, [f"{test}:1", f"{mod}:1", f"{mod}:9"], failure))
    finish(ahead)
    index = index_file(mod)
    assert index is not None
    assert index.calls == {1: ["helper"], 9: []}  # ran() and helper(), not passing_only()
    assert index.private_writes == {1: set(), 9: set()}  # read with the calls, in one walk
    assert index_file(test).calls == {}  # the test's own function is not read


def test_a_file_the_map_holds_as_it_is_is_not_fingerprinted_again(tmp_path, monkeypatch):
    monkeypatch.setenv("HEAL_LS_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "mod.py").write_text("def f():\n    return 1\n")
    (tmp_path / "test_m.py").write_text("def test_f():\n    pass\n")
    covered = [f"{tmp_path / 'mod.py'}:1"]
    run = RunResult(
        root=str(tmp_path), tests=[Outcome("test_m.py::test_f", "passed", covered=covered)]
    )
    with ImpactMap.open(str(tmp_path)) as impact:
        assert impact.record(run, started=2e9) == 1
    read: list[str] = []
    monkeypatch.setattr(prefetch, "file_functions", read.append)
    monkeypatch.setattr(prefetch, "index_file", lambda path: None)
    ahead = prefetch.Prefetch(str(tmp_path), None)
    ahead.take(*files_named(line("passed", str(tmp_path / "test_m.py"), covered)))
    (tmp_path / "new.py").write_text("x = 1\n")
    ahead.take(*files_named(line("passed", "", [f"{tmp_path / 'new.py'}:1"])))
    finish(ahead)
    assert read == [str(tmp_path / "new.py")]


def test_the_test_support_files_are_fingerprinted_for_the_map_unless_it_holds_them(
    tmp_path, monkeypatch
):
    """The map's write reads every conftest.py and tests/ helper it does not hold yet
    (impact/record.py): the worker reads them while the tests run, not those the map holds."""
    monkeypatch.setenv("HEAL_LS_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "tests").mkdir()
    conftest, helper = tmp_path / "tests" / "conftest.py", tmp_path / "tests" / "helpers.py"
    conftest.write_text("import pytest\n")
    helper.write_text("def make():\n    return 1\n")
    (tmp_path / "tests" / "test_m.py").write_text("def test_f():\n    pass\n")
    test = str(tmp_path / "tests" / "test_m.py")
    read: list[str] = []
    monkeypatch.setattr(prefetch, "file_functions", read.append)
    monkeypatch.setattr(prefetch, "index_file", lambda path: None)
    ahead = prefetch.Prefetch(str(tmp_path), None)
    ahead.take(*files_named(line("passed", test, [])))
    finish(ahead)
    assert sorted(read) == sorted([str(conftest), str(helper), test])
    run = RunResult(root=str(tmp_path), tests=[Outcome("tests/test_m.py::test_f", "passed")])
    with ImpactMap.open(str(tmp_path)) as impact:
        impact.record(run, started=2e9)  # the support files are in the map now
    read.clear()
    ahead = prefetch.Prefetch(str(tmp_path), None)
    ahead.take(*files_named(line("passed", test, [])))
    finish(ahead)
    assert read == []  # the test file too: the run's record holds it
