"""What a run's failures will be located and recorded with, read while the run goes on.

heal-ls waits while pytest runs (most of `check`'s time), and right after it the impact map
fingerprints the files of every function the tests ran (impact/fingerprints.py) and the ranking
indexes those the failing tests ran (locate/index.py) and reads which names the bodies of the
functions a failing test ran call and which private state they change on other objects
(locate/cached.read_ahead: a third of locating a networkx failure). Each report row names them as its test ends, so a worker thread reads them then, and
that work is done when the run ends. The caches are keyed by the file's state (signature,
content hash): a file changed in between is read again, never trusted stale. A file the map
already holds as it is now is not fingerprinted again.

    ahead = Prefetch(root, python)
    run = await run_pytest(root, options, on_row=ahead.wrap(on_row, files_named))
    ahead.stop()      # before locating: the index cache is the caller's thread's again
"""

from __future__ import annotations

import logging
import os
import queue
import sqlite3
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

from heal_ls.impact.fingerprints import file_functions, signature
from heal_ls.impact.where import map_path
from heal_ls.locate.cached import read_ahead
from heal_ls.locate.index import index_file
from heal_ls.pysource.paths import is_test_file, test_support_files

log = logging.getLogger(__name__)
Row = TypeVar("Row")
_DONE = ("", False, 0)


class Prefetch:
    def __init__(self, root: str, python: str | None) -> None:
        self.root = os.path.join(os.path.abspath(root), "")
        self.python = python
        self.seen: set[tuple[str, bool]] = set()
        self.seen_keys: set[str] = set()  # the failed tests' functions whose calls are queued
        # (path, failing, 0): a file to read; (path, True, first line): a function's calls
        self.todo: queue.SimpleQueue[tuple[str, bool, int]] = queue.SimpleQueue()
        self.worker: threading.Thread | None = None
        self.stopping = threading.Event()  # stop() was called: no more reading ahead

    def wrap(
        self,
        on_row: Callable[[Row], None] | None,
        named: Callable[[Row], tuple[Sequence[str], bool, Sequence[str]]],
    ) -> Callable[[Row], None]:
        """A row handler that passes each row on to `on_row` and queues the files it names:
        `named(row)` says which, whether the row is a failure's and the coverage keys of the
        functions a failed test ran (testing/report.files_named)."""

        def handle(row: Row) -> None:
            self.take(*named(row))
            if on_row is not None:
                on_row(row)

        return handle

    def take(self, paths: Sequence[str], failing: bool, ran: Sequence[str] = ()) -> None:
        """Queue the workspace files among `paths` (indexed too when `failing`), then the
        calls of the workspace functions `ran` names ("path:first line"), test files' aside
        (the ranking reads the calls of the functions a failing test ran)."""
        for path in paths:
            if path.startswith(self.root) and (path, failing) not in self.seen:
                self.seen.add((path, failing))
                self._start()
                self.todo.put((path, failing, 0))
        for key in ran:
            path, _, line = key.rpartition(":")
            if key in self.seen_keys or not (path.startswith(self.root) and line.isdigit()):
                continue
            self.seen_keys.add(key)
            if not is_test_file(path, self.root):
                self._start()
                self.todo.put((path, True, int(line)))

    def stop(self) -> None:
        """Stop reading ahead (what is queued is dropped); returns once the worker is idle."""
        if self.worker is not None:
            self.stopping.set()
            while not self.todo.empty():
                self.todo.get_nowait()
            self.todo.put(_DONE)
            self.worker.join()
            self.worker = None
            self.stopping.clear()

    def _start(self) -> None:
        if self.worker is None:
            self.worker = threading.Thread(target=self._work, name="heal-prefetch", daemon=True)
            self.worker.start()

    def _work(self) -> None:
        known = _known_files(self.root, self.python)
        # the map's write reads each test-support file it does not hold yet (impact/record.py:
        # networkx's 26 were a third of a cold check's write, after the run)
        for rel, path in test_support_files(self.root):
            if self.stopping.is_set():
                break
            if known.get(rel) != signature(path):
                file_functions(path)
        while (job := self.todo.get()) != _DONE:
            path, failing, line = job
            try:
                if line:
                    _calls(path, line)
                    continue
                rel = os.path.relpath(path, self.root)
                if known.get(rel) != signature(path):
                    file_functions(path)
                if failing:
                    index_file(path)
            except Exception:  # noqa: BLE001 - reading ahead is advice: the caller reads again
                log.debug("prefetch of %s failed", path, exc_info=True)


def _calls(path: str, line: int) -> None:
    """Read which names the body of the function at `line` of `path` calls and the private
    state it changes on other objects (cached with the file's index: locate/cached.py)."""
    index = index_file(path)
    node = index.at_start_line(line) if index is not None else None
    if index is not None and node is not None:
        read_ahead(index, node)


def _known_files(root: str, python: str | None) -> dict[str, tuple[int, int]]:
    """The files the project's map holds, with the signature it read them at ({}: no map)."""
    try:
        path = map_path(root, python)
        if not path.is_file():
            return {}
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1.0)
        try:
            rows = db.execute("SELECT path, mtime_ns, size FROM files").fetchall()
        finally:
            db.close()
    except (sqlite3.Error, OSError):
        return {}
    return {rel: (mtime, size) for rel, mtime, size in rows}
