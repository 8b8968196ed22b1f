"""Small parts behind issue 16: the report tail, pytest's lastfailed reader, static call sites,
guard counts, flaky labels, folder lookup and the merged multi-folder summary."""

import asyncio
import json

import pytest
from heal_ls.heal.blast import Blast, call_sites, guard_count
from heal_ls.lsp.runs.commands import merged_summary, run_summary
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.server import HealLanguageServer
from heal_ls.models import RunResult, Suspect
from heal_ls.models import TestOutcome as Outcome
from heal_ls.payload import to_object
from heal_ls.testing.agent import heal_protocol as wire
from heal_ls.testing.lastfailed import LASTFAILED, lastfailed_path, pytest_home, read_lastfailed
from heal_ls.testing.report_tail import ReportTail


def test_report_tail_hands_over_each_complete_row_once(tmp_path):
    path = tmp_path / "report.jsonl"
    rows = []
    tail = ReportTail(str(path), rows.append)
    tail.read()  # no file yet: nothing, no error
    path.write_text('{"kind": "collected", "count": 2}\n{"kind": "sta')  # a torn last line
    tail.read()
    assert rows == [wire.Collected(2)]
    with path.open("a") as out:
        out.write('rt", "nodeid": "t::a"}\nnot json\n')
    tail.read()
    tail.read()
    assert rows[1:] == [wire.Start("t::a")]  # not the line that is no report line


def test_report_tail_reads_the_rest_when_stopped(tmp_path):
    path = tmp_path / "report.jsonl"
    rows = []

    async def run():
        tail = ReportTail(str(path), rows.append)
        tail.start()
        path.write_text('{"kind": "abort", "nodeid": "t::a"}\n')
        await tail.stop()  # no poll happened yet: stop still reads it

    asyncio.run(run())
    assert rows == [wire.Abort("t::a")]


def test_read_lastfailed(tmp_path):
    assert read_lastfailed(str(tmp_path)) is None
    cache = tmp_path / LASTFAILED
    cache.parent.mkdir(parents=True)
    cache.write_text(json.dumps({"t.py::b": True, "t.py::a": True, "t.py::c": False}))
    assert read_lastfailed(str(tmp_path)) == ["t.py::a", "t.py::b"]
    cache.write_text('{"t.py::a": tr')  # pytest still writing
    assert read_lastfailed(str(tmp_path)) is None


def test_lastfailed_follows_cache_dir_and_a_rootdir_above_the_folder(tmp_path, monkeypatch):
    repo, folder = tmp_path / "repo", tmp_path / "repo" / "app"
    (folder / "tests").mkdir(parents=True)
    (repo / "tox.ini").write_text("[pytest]\ncache_dir = $CACHE_NAME/pt\n")
    monkeypatch.setenv("CACHE_NAME", ".cache")
    assert pytest_home(str(folder)) == (str(repo), {"cache_dir": "$CACHE_NAME/pt"})
    cache = repo / ".cache" / "pt" / "v" / "cache" / "lastfailed"
    assert lastfailed_path(str(folder)) == str(cache)
    cache.parent.mkdir(parents=True)
    failed = {"app/tests/test_a.py::test_x[1-2]": True, "other/test_b.py::test_y": True}
    cache.write_text(json.dumps(failed))
    # named as the folder's own runs name them; tests of other folders are not its own
    assert read_lastfailed(str(folder)) == ["tests/test_a.py::test_x[1-2]"]
    assert read_lastfailed(str(repo)) == sorted(failed)


@pytest.mark.parametrize(
    ("files", "home"),
    [
        ({"pytest.ini": "", "app/setup.cfg": "[metadata]\n"}, ""),  # setup.cfg: not pytest's
        ({"pyproject.toml": "[tool.pytest.ini_options]\ncache_dir = 'c'\n"}, ""),
        ({"pyproject.toml": "[tool.pytest]\ncache_dir = 'c'\n", "app/tox.ini": "[x]\n"}, ""),
        ({"app/pytest.toml": "", "pytest.ini": "[pytest]\n"}, "app"),
        ({"pyproject.toml": "[project]\nname = 'x'\n", "app/setup.py": ""}, ""),  # toml first
        ({"setup.py": ""}, ""),
        ({}, "app"),
    ],
)
def test_pytest_home_is_found_as_pytest_finds_it(tmp_path, files, home):
    base = tmp_path / "base"
    (base / "app").mkdir(parents=True)
    for name, text in files.items():
        (base / name).write_text(text)
    rootdir, options = pytest_home(str(base / "app"))
    assert rootdir == str(base / home).rstrip("/")
    if "cache_dir = 'c'" in "".join(files.values()):
        assert options == {"cache_dir": "c"}


@pytest.mark.parametrize(
    ("name", "text", "options"),
    [
        ("pyproject.toml", "[project]\nname = 'x'\n", None),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\ncache_dir = 'c'  # here\n[x]\na = 'b'\n",
            {"cache_dir": "c"},
        ),
        ("pytest.toml", '[pytest]\ncache_dir = "c"\n', {"cache_dir": "c"}),
        ("pytest.toml", "", {}),
    ],
)
def test_toml_config_is_read_without_tomllib_too(tmp_path, name, text, options):
    from heal_ls.testing import lastfailed

    (tmp_path / name).write_text(text)
    assert lastfailed._toml_options(str(tmp_path / name), name) == options
    assert lastfailed._toml_options_by_lines(str(tmp_path / name), name) == options  # 3.10


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
    assert Blast(1, 2).text() == "1 call site, 2 guard tests"
    assert Blast(4, None).text() == "4 call sites"  # guards not seen yet: no claim of none


def test_the_innermost_folder_holds_a_path(tmp_path):
    outer, inner = tmp_path / "a", tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    server = HealLanguageServer()
    server.folders = folders = [Folder(str(outer)), Folder(str(inner))]
    assert server.folder_for(str(inner / "x.py")) is folders[1]
    assert server.folder_for(str(outer / "x.py")) is folders[0]
    assert server.folder_for(str(tmp_path / "elsewhere.py")) is None


def test_merged_summary_adds_the_folders_runs():
    one = RunResult(root="/a", passed=2, failed=1, seconds=1.0)
    two = RunResult(root="/b", failed=1, seconds=0.5, error=None)
    broken = RunResult(root="/c", error="no pytest")
    total = merged_summary([one, two, broken])
    assert (total.passed, total.failed, total.error) == (2, 2, "no pytest")
    assert total.seconds == 1.5 and total.ran is True
    assert to_object(merged_summary([None, None])) == {
        "ran": False, "passed": 0, "failed": 0, "errors": 0, "seconds": 0
    }  # fmt: skip
    assert to_object(run_summary(None)) == {"ran": False}
