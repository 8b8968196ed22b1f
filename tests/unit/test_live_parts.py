"""Small parts behind issue 16: the report tail, pytest's lastfailed reader, static call sites,
guard counts, flaky labels, folder lookup and the merged multi-folder summary."""

import asyncio
import json
from types import SimpleNamespace

from heal_ls.heal.blast import Blast, call_sites, guard_count
from heal_ls.lsp.commands import merged_summary
from heal_ls.lsp.folders import folder_for
from heal_ls.models import RunResult, Suspect
from heal_ls.models import TestOutcome as Outcome
from heal_ls.testing.flaky import Flaky
from heal_ls.testing.lastfailed import LASTFAILED, read_lastfailed
from heal_ls.testing.report_tail import ReportTail


def test_report_tail_hands_over_each_complete_row_once(tmp_path):
    path = tmp_path / "report.jsonl"
    rows = []
    tail = ReportTail(str(path), rows.append)
    tail.read()  # no file yet: nothing, no error
    path.write_text('{"kind": "collected", "count": 2}\n{"kind": "sta')  # a torn last line
    tail.read()
    assert rows == [{"kind": "collected", "count": 2}]
    with path.open("a") as out:
        out.write('rt", "nodeid": "t::a"}\nnot json\n')
    tail.read()
    tail.read()
    assert rows[1:] == [{"kind": "start", "nodeid": "t::a"}]


def test_report_tail_reads_the_rest_when_stopped(tmp_path):
    path = tmp_path / "report.jsonl"
    rows = []

    async def run():
        tail = ReportTail(str(path), rows.append)
        tail.start()
        path.write_text('{"kind": "test"}\n')
        await tail.stop()  # no poll happened yet: stop still reads it

    asyncio.run(run())
    assert rows == [{"kind": "test"}]


def test_read_lastfailed(tmp_path):
    assert read_lastfailed(str(tmp_path)) is None
    cache = tmp_path / LASTFAILED
    cache.parent.mkdir(parents=True)
    cache.write_text(json.dumps({"t.py::b": True, "t.py::a": True, "t.py::c": False}))
    assert read_lastfailed(str(tmp_path)) == ["t.py::a", "t.py::b"]
    cache.write_text('{"t.py::a": tr')  # pytest still writing
    assert read_lastfailed(str(tmp_path)) is None


def test_call_sites_count_names_and_attribute_calls(tmp_path):
    (tmp_path / "a.py").write_text("def f():\n    pass\n\nf()\nx.f()\nx.f\ng(f)\n")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "b.py").write_text("f()\n")  # someone else's code
    (tmp_path / "broken.py").write_text("def (:\n")
    assert call_sites(str(tmp_path), "Box.f") == 2
    (tmp_path / "c.py").write_text("obj.f(); f()\n")
    assert call_sites(str(tmp_path), "f") == 4


def test_guards_are_passing_tests_that_ran_the_function():
    suspect = Suspect("/w/m.py", "f", 3, 0, 5, 0, "raised here", def_line=4)
    run = RunResult(
        root="/w",
        tests=[
            Outcome("t::a", "passed", covered=["/w/m.py:4"]),
            Outcome("t::b", "failed", covered=["/w/m.py:4"]),
            Outcome("t::c", "passed", covered=["/w/m.py:9"]),
        ],
    )
    assert guard_count([run, run, None], suspect) == 1
    assert Blast(1, 2).text() == "1 caller, 2 guard tests"


def test_flaky_labels():
    assert Flaky(3, 1).label() == "flaky: passed 1 of 3 runs"
    assert Flaky(3, 0).label() == "not flaky: failed all 3 runs"


def test_the_innermost_folder_holds_a_path(tmp_path):
    outer, inner = tmp_path / "a", tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    folders = [SimpleNamespace(root=str(outer)), SimpleNamespace(root=str(inner))]
    ls = SimpleNamespace(folders=folders)
    assert folder_for(ls, str(inner / "x.py")) is folders[1]
    assert folder_for(ls, str(outer / "x.py")) is folders[0]
    assert folder_for(ls, str(tmp_path / "elsewhere.py")) is None


def test_merged_summary_adds_the_folders_runs():
    one = RunResult(root="/a", passed=2, failed=1, seconds=1.0)
    two = RunResult(root="/b", failed=1, seconds=0.5, error=None)
    broken = RunResult(root="/c", error="no pytest")
    total = merged_summary([one, two, broken])
    assert (total["passed"], total["failed"], total["error"]) == (2, 2, "no pytest")
    assert total["seconds"] == 1.5 and total["ran"] is True
