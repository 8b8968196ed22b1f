"""A study, not a feature (issue 22, class A): a pytest plugin (`-p trail_recorder`, this folder
on PYTHONPATH) that records, during each test's call phase, every workspace function call's
argument reprs and returned repr, and for a failing test the reprs the failing check compared.
benchmarks/trail_study.py reads what it writes to find "the first call that returned the value
the assertion compared" (the maker) when no frame holds it any more.

Environment: TRAIL_ROOT (the workspace: only defs in files under it, outside test files, are
recorded), TRAIL_OUT (the JSON file written at the session's end). Bounded: at most MAX_CALLS
calls kept a test, MAX_CHARS characters a repr, MAX_ARGS arguments a call. Stdlib + pytest only,
as it runs in the project's interpreter.
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
from pathlib import Path
from types import FrameType

import pytest

MAX_CALLS = 20000  # calls kept a test; later calls are counted, not kept
MAX_CHARS = 300  # characters a repr keeps
MAX_ARGS = 6  # arguments a call keeps


def short_repr(value: object, limit: int = MAX_CHARS) -> str:
    """repr(value) cut to `limit` characters (a cut one ends with '...'); a repr that raises
    names the type instead, so a user's broken __repr__ cannot change the test's outcome."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - any user __repr__ may raise
        return f"<{type(value).__name__} repr failed>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_test_file(path: str) -> bool:
    """A test module, a conftest, or any file in a `test`/`tests`/`testing` folder (helpers)."""
    name = os.path.basename(path)
    folders = set(os.path.dirname(path).split(os.sep))
    test_name = name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
    return test_name or bool(folders & {"test", "tests", "testing"})


class Recorder:
    """The calls of one test, in the order they started: [key, argument reprs, returned repr,
    return order] (the last two None while running, or when the call was not kept)."""

    def __init__(self, root: str, max_calls: int = MAX_CALLS) -> None:
        self.root = os.path.realpath(root) + os.sep
        self.max_calls = max_calls
        self.calls: list[list[object]] = []
        self.dropped = 0  # calls past max_calls
        self.returns = 0  # kept calls that returned so far
        self.parents: list[int | None] = []  # per kept call: its caller's index (the innermost
        self._stack: list[int] = []  # open kept call), None for one the test made
        self._open: dict[int, list[object]] = {}  # id(frame) -> its kept call
        self._mine: dict[str, bool] = {}  # filename -> in the workspace, not a test file
        self._before: object = None

    def _in_workspace(self, filename: str) -> bool:
        known = self._mine.get(filename)
        if known is None:
            real = os.path.realpath(filename)  # '<frozen os>', '<string>': not a file of ours
            known = os.path.isabs(filename) and real.startswith(self.root)
            known = known and not is_test_file(real)
            self._mine[filename] = known
        return known

    def profile(self, frame: FrameType, event: str, arg: object) -> None:
        if event == "call":
            code = frame.f_code
            if not self._in_workspace(code.co_filename):
                return
            if len(self.calls) >= self.max_calls:
                self.dropped += 1
                return
            names = code.co_varnames[: min(code.co_argcount + code.co_kwonlyargcount, MAX_ARGS)]
            here = frame.f_locals
            args = [f"{n}={short_repr(here[n])}" for n in names if n in here]
            qualname = getattr(code, "co_qualname", code.co_name)  # 3.11+; a name before
            key = f"{os.path.relpath(code.co_filename, self.root)}::{qualname}"
            call: list[object] = [key, args, None, None]
            self.parents.append(self._stack[-1] if self._stack else None)
            self._stack.append(len(self.calls))
            self.calls.append(call)
            self._open[id(frame)] = call
        elif event == "return":
            call = self._open.pop(id(frame), None)
            if call is not None:  # a raise (and a yield) also ends here; a raise with arg None
                call[2], call[3] = short_repr(arg), self.returns
                self.returns += 1
                if self._stack:
                    self._stack.pop()

    def start(self) -> None:
        self._before = sys.getprofile()  # another profiler's hook is put back by stop
        sys.setprofile(self.profile)

    def stop(self) -> None:
        sys.setprofile(self._before)
        self._open.clear()
        self._stack.clear()


def compared(excinfo: pytest.ExceptionInfo[BaseException], root: str) -> dict[str, object]:
    """What the failing check compared: the innermost test-file frame's line, the reprs of the
    test's locals that line names, and the exception's message (pytest's explanation)."""
    frame = None
    for entry in excinfo.traceback:
        if is_test_file(str(entry.path)):
            frame = entry
    found: dict[str, object] = {"message": str(excinfo.value)[:4000], "locals": {}}
    if frame is None:
        return found
    found["path"], found["line"] = str(frame.path), frame.lineno + 1
    source = str(frame.statement)
    found["statement"] = source
    named = set(re.findall(r"[A-Za-z_]\w*", source))
    try:
        named = {n.id for n in ast.walk(ast.parse(source.strip())) if isinstance(n, ast.Name)}
    except SyntaxError:
        pass
    here = frame.frame.f_locals
    found["locals"] = {n: short_repr(here[n], 2000) for n in sorted(named) if n in here}
    return found


class Plugin:
    def __init__(self, root: str, out: str) -> None:
        self.root, self.out = root, out
        self.tests: dict[str, dict[str, object]] = {}
        self._recorder: Recorder | None = None

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item):  # type: ignore[no-untyped-def]
        self._recorder = Recorder(self.root)
        self._recorder.start()
        try:
            yield
        finally:
            self._recorder.stop()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
        yield
        if call.when != "call" or self._recorder is None:
            return
        kept: dict[str, object] = {
            "calls": self._recorder.calls,
            "parents": self._recorder.parents,
            "dropped": self._recorder.dropped,
            "failed": call.excinfo is not None,
        }
        if call.excinfo is not None:
            kept["compared"] = compared(call.excinfo, self.root)
        self.tests[item.nodeid] = kept
        self._recorder = None

    def pytest_sessionfinish(self) -> None:
        Path(self.out).write_text(json.dumps(self.tests), encoding="utf-8")


def pytest_configure(config: pytest.Config) -> None:
    root, out = os.environ.get("TRAIL_ROOT"), os.environ.get("TRAIL_OUT")
    if root and out:
        config.pluginmanager.register(Plugin(root, out), "trail-recorder")
