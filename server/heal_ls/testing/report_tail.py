"""Reading the plugin's JSON-lines report while pytest still writes it, for live progress.

The plugin flushes each row as it happens (collected, start, test, collect_error, timeout);
`ReportTail` polls the file and hands every complete new row to a callback, and reads the
rest once more when stopped, so no row is missed or seen twice. A row is a heal_protocol
report line (decode_line); a line that is none is not handed on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from heal_ls.testing.agent import heal_protocol as wire
from heal_ls.testing.agent.heal_exchange import open_exchange
from heal_ls.testing.report import ReportRow

POLL_SECONDS = 0.1
READ_LIMIT = 64 * 1024 * 1024  # per poll: a run cannot make heal-ls hold more at once


class ReportTail:
    def __init__(self, path: str, on_row: Callable[[ReportRow], None]) -> None:
        self.path = path
        self.on_row = on_row
        self.offset = 0
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.ensure_future(self._poll())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        self.read()

    async def _poll(self) -> None:
        while True:
            self.read()
            await asyncio.sleep(POLL_SECONDS)

    def read(self) -> None:
        """Hand over every complete line written since the last read."""
        try:
            with open_exchange(self.path) as handle:
                handle.seek(self.offset)
                data = handle.read(READ_LIMIT)
        except OSError:
            return  # not created yet
        end = data.rfind(b"\n") + 1  # a torn last line waits for the next read
        self.offset += end
        for line in data[:end].splitlines():
            try:
                row = wire.decode_line(line)
            except wire.ReportLineError:
                continue  # only shown live: collect_result refuses the report for it
            try:
                self.on_row(row)
            except Exception:  # a display problem must not break the run
                pass
