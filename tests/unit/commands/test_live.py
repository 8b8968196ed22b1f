"""The live bar on a terminal: test ids are shown as they are, at any width."""

import io

import pytest
from heal_ls.commands.live import Live
from heal_ls.testing.agent import heal_protocol as wire
from rich.console import Console


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def bar_line(live: Live, width: int) -> str:
    """The bar as a terminal of `width` columns would draw it."""
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(live.progress.make_tasks_table(live.progress.tasks))
    return console.file.getvalue().rstrip("\n")


@pytest.fixture
def live(monkeypatch):
    monkeypatch.setattr("sys.stderr", Terminal())
    with Live(True, title="check") as bar:
        bar.on_row(wire.Collected(3))
        yield bar


@pytest.mark.parametrize("nodeid", ["tests/test_a.py::test_x[/x]", "tests/test_a.py::test_x[a]"])
def test_ids_that_look_like_markup_are_shown_as_they_are(live, nodeid):
    live.on_row(wire.Start(nodeid))
    live.progress.refresh()  # draws in this thread: a markup error would raise here
    assert nodeid in bar_line(live, 160)


def test_a_wide_terminal_shows_the_whole_step_and_a_narrow_one_keeps_it(live):
    step = "attempt 2/6: local repairer, candidate 14 of 40 " + "x" * 60  # 108 characters
    live.step(step)
    assert step in bar_line(live, 160)  # not cut at 80 characters
    narrow = bar_line(live, 80)
    assert len(narrow) <= 80 and "attempt 2/6" in narrow  # the bar leaves room for the step
    assert "check" in narrow and "0/3" in narrow  # and keeps its title and count (not `c… step`)


def test_the_count_is_known_before_the_first_step_ends(live):
    live.expect(32)
    assert "0/32" in bar_line(live, 160)
    live.advance()
    assert "1/32" in bar_line(live, 160)


def test_a_long_test_shows_when_the_timeout_will_stop_it(monkeypatch):
    monkeypatch.setattr("sys.stderr", Terminal())
    clock = [100.0]
    monkeypatch.setattr("heal_ls.commands.live.time.monotonic", lambda: clock[0])
    with Live(True, title="check", stop_after=10.0) as bar:
        bar.on_row(wire.Collected(1))
        bar.on_row(wire.Start("tests/test_a.py::test_slow"))
        assert "stops in" not in bar_line(bar, 160)  # a fast test stays quiet
        clock[0] += 3
        assert "stops in 7s" in bar_line(bar, 160)
        clock[0] += 7
        assert "stopping" in bar_line(bar, 160)
        bar.on_row(wire.TestLine("tests/test_a.py::test_slow", "passed", 1.0, "", 1, [], None, ""))
        assert "stop" not in bar_line(bar, 160)  # the test ended: nothing to stop


def test_rows_go_to_the_bar_only_where_it_is_shown(monkeypatch):
    """Off a terminal (a pipe, --json) a run gets no row reader: its report is not read while it
    goes, only once at its end."""
    with Live(False, title="index") as quiet:
        assert quiet.rows() is None
    monkeypatch.setattr("sys.stderr", Terminal())
    with Live(True, title="index") as shown:
        assert shown.rows() == shown.on_row


def test_index_with_json_reads_no_rows_while_it_runs(monkeypatch, tmp_path, capsys):
    import argparse

    from heal_ls.commands import index
    from heal_ls.impact.store import MapStats
    from heal_ls.testing.fill_map import Filled

    given = {}

    async def fill_map(root, **kwargs):
        given.update(kwargs)
        return Filled(None, [], None, 0.0, MapStats(0, 0, 0, 0))

    monkeypatch.setattr(index, "fill_map", fill_map)
    monkeypatch.setattr(index, "has_xdist", lambda python: True)
    parser = argparse.ArgumentParser()
    index.add_arguments(parser)
    args = parser.parse_args([str(tmp_path), "--json"])
    assert index.run(args) == 0
    assert "on_row" in given and given["on_row"] is None
    assert '"ran": 0' in capsys.readouterr().out
