"""Live progress for `check`, `fix` and `bench` on a terminal (rich): tests done/total, each
failure printed as it happens, the current test or heal step. Off the terminal (a pipe, a CI
log) or with --json it shows nothing: the commands print their plain lines as before.

Everything goes to stderr, so stdout stays the command's report even while the bar is live.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from heal_ls.testing.agent import heal_protocol as wire


def wanted(json_output: bool) -> bool:
    return not json_output and sys.stderr.isatty()


class Live:
    """A context manager; `on_row` takes the test report rows, `step` a heal step."""

    def __init__(self, enabled: bool, title: str = "tests", stop_after: float = 0.0):
        self.enabled = enabled
        self.title = title
        self.stop_after = stop_after  # the per-test timeout: a long test shows when it stops
        self.progress: Any = None  # rich's Progress, imported only on a terminal
        self.task: Any = None

    def __enter__(self) -> Live:
        if not self.enabled:
            return self
        # lazy: rich adds 40-57 ms of CPU to the 155-180 ms that check and fix take to import;
        # only a terminal shows the bar, so a pipe or a CI log never pays it
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.table import Column

        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.fields[title]}", style="bold", markup=False),
            BarColumn(bar_width=20),  # narrow, so an 80-column terminal still shows the step
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            _stop_column(),  # rich redraws it ten times a second
            # Test ids are not markup (`test_x[/x]` would raise, `test_x[a]` would vanish); the
            # step takes the rest of the line and is cut with an ellipsis at the terminal's width.
            TextColumn(
                "{task.description}",
                markup=False,
                table_column=Column(ratio=1, no_wrap=True, overflow="ellipsis"),
            ),
            console=Console(file=sys.stderr),
            # the line is the terminal's width: only then does the step column take the room
            # left (ratio) and cut its text; sized to its text, a long step collapsed the title,
            # count and bar to `t… <step>` at 80 columns
            expand=True,
            transient=True,  # the bar goes; the failures printed above it stay
            redirect_stdout=False,  # stdout is the command's report, maybe piped: leave it be
            redirect_stderr=False,
        )
        self.progress.start()
        self.task = self.progress.add_task(
            "collecting", total=None, title=self.title, test_started=None, stop_after=0.0
        )
        return self

    def __exit__(self, *exc) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None

    def print(self, text: str) -> None:
        if self.progress is not None:
            self.progress.console.print(text, markup=False, highlight=False)

    def step(self, message: str) -> None:
        """The current step (a heal's attempt, a bench case)."""
        if self.progress is not None:
            self.progress.update(self.task, description=message)

    def expect(self, total: int) -> None:
        """How many steps there will be, known before the first ends (not `0/?`)."""
        if self.progress is not None:
            self.progress.update(self.task, total=total)

    def advance(self) -> None:
        if self.progress is not None:
            self.progress.advance(self.task)

    def rows(self) -> Callable[[wire.ReportLine], None] | None:
        """on_row where rows are shown, else None: a run given no reader reads no report while
        it goes (`heal-ls index --json` of networkx read and checked its ~18,000 lines twice)."""
        return self.on_row if self.progress is not None else None

    def on_row(self, row: wire.ReportLine) -> None:
        """A line of the test report, as pytest writes it."""
        if self.progress is None:
            return
        if isinstance(row, wire.Collected):
            self.progress.update(self.task, total=row.count, description="")
        elif isinstance(row, wire.Start):
            self.step(row.nodeid)
            started = time.monotonic()
            self.progress.update(self.task, test_started=started, stop_after=self.stop_after)
        elif isinstance(row, wire.TestLine):
            self.progress.update(self.task, test_started=None)
            self.progress.advance(self.task)
            if row.outcome in ("failed", "error"):
                self.print(f"FAILED {row.nodeid}{_error(row.failure)}")
        elif isinstance(row, wire.CollectError):
            self.print(f"ERROR {row.failure.id or 'collecting'}")


def _error(failure: wire.FailureRecord | None) -> str:
    if failure is None or not failure.exc_type:
        return ""
    message = failure.message.splitlines()[:1]
    return f" - {failure.exc_type}: {message[0][:120]}" if message else f" - {failure.exc_type}"


SHOW_AFTER = 1.0  # seconds a test runs before the bar says when it will be stopped


def stop_text(elapsed: float, stop_after: float) -> str:
    """`stops in 7s` once a test has run SHOW_AFTER seconds (fast tests stay quiet)."""
    if stop_after <= 0 or elapsed < SHOW_AFTER:
        return ""
    left = stop_after - elapsed
    return f"stops in {left:.0f}s" if left >= 0.5 else "stopping"


def _stop_column():
    # lazy: rich, see Live.__enter__
    from rich.progress import ProgressColumn
    from rich.text import Text

    class StopColumn(ProgressColumn):
        """When the current test will be stopped by the per-test timeout."""

        def render(self, task) -> Text:
            started = task.fields.get("test_started")
            if started is None:
                return Text("")
            elapsed = time.monotonic() - started
            return Text(stop_text(elapsed, task.fields.get("stop_after", 0.0)), style="yellow")

    return StopColumn()
