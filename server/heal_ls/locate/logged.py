"""What the code logged while the failing test ran: a raise it caught and logged, and the log
record the failing check reads.

A server catches what its handler raised, logs the traceback and answers 500 or closes the
stream (tornado's `RequestHandler.log_exception`, `_ExceptionLoggingContext`): the test sees
the symptom (`500 != 200`, `StreamClosedError`), the raise is only in the log. pytest keeps the
log in the failure's captured output (`--- Captured log call ---`, in `Failure.stdout`), a
record a line in its default format (`ERROR    tornado.application:web.py:1875 Uncaught
exception GET /`), the logged exception's traceback after it. A check on `caplog.records`
shows each record's repr on its `where` line (`<LogRecord: pkg.mod, 30, /abs/pkg/mod.py, 1401,
"Skipping data">`): the file and line of the logging call; `caplog.text` shows the record's
line (`WARNING  pkg.mod:mod.py:1401 Skipping data`), the file's name without its folder.

What counts is allow-listed, not what is not: a record at ERROR or CRITICAL, in pytest's
default format, in the failing phase's own log section; a raise whose innermost frame of the
workspace is outside the tests (a handler the test wrote raised on purpose: the test's own).
"""

from __future__ import annotations

import builtins
import os
import re
from dataclasses import dataclass

from heal_ls.models import Failure, Frame
from heal_ls.pysource.paths import is_workspace_file
from heal_ls.pysource.traceback_text import failure_from_text

SECTION = re.compile(r"^--- (?P<title>Captured [^\n]*?) ---$", re.M)
# pytest's default log_format: "%(levelname)-8s %(name)s:%(filename)s:%(lineno)d %(message)s"
RECORD = re.compile(
    r"^(?P<level>CRITICAL|ERROR|WARNING|INFO|DEBUG) +(?P<logger>\S+?):(?P<file>[^\s:]+):"
    r"(?P<line>\d+)(?: |$)",
    re.M,
)
FAILED_LEVELS = {"ERROR", "CRITICAL"}  # a raise logged at these went unhandled, by its words
# The environment's errors (the network, the file system: `ConnectionError`, `TimeoutError`,
# `FileNotFoundError`, ...): raised inside a library, logged and handled by design (a fetch
# that falls back to a bundled copy), they say nothing of the code.
ENVIRONMENT_ERRORS = frozenset(
    name
    for name, kind in vars(builtins).items()
    if isinstance(kind, type) and issubclass(kind, OSError)
)
# LogRecord.__repr__ (the same in every Python 3): '<LogRecord: %s, %s, %s, %s, "%s">' of
# name, levelno, pathname, lineno, msg
RECORD_REPR = re.compile(r'<LogRecord: [^,<>]*, \d+, (?P<path>[^<>]+?), (?P<line>\d+), "')


@dataclass(frozen=True)
class LoggedRaise:
    """An exception the code caught and logged with its traceback."""

    exc_type: str
    message: str
    frames: list[Frame]  # as logged, innermost last


@dataclass(frozen=True)
class LogCall:
    """Where a logging call ran: its file (absolute, or a bare file name when the check shows
    only that) and line."""

    path: str
    line: int


def captured_log(failure: Failure) -> str:
    """The failing phase's captured log ("" when pytest kept none)."""
    title = f"Captured log {failure.when or 'call'}"
    found = list(SECTION.finditer(failure.stdout))
    for at, section in enumerate(found):
        if section["title"] == title:
            end = found[at + 1].start() if at + 1 < len(found) else len(failure.stdout)
            return failure.stdout[section.end() : end]
    return ""


def logged_raises(failure: Failure, root: str) -> list[LoggedRaise]:
    """The exceptions logged with a traceback at ERROR or above in the failing phase, the
    latest first (nearest to the failure). Of a chain, the one logged: it ended the handling."""
    log = captured_log(failure)
    starts = list(RECORD.finditer(log))
    found = []
    for at, record in enumerate(starts):
        if record["level"] not in FAILED_LEVELS:
            continue
        end = starts[at + 1].start() if at + 1 < len(starts) else len(log)
        logged = failure_from_text(log[record.end() : end], root)
        if logged is not None and logged.frames and not _environment_error(logged, root):
            found.append(LoggedRaise(logged.exc_type, logged.message, logged.frames))
    return found[::-1]


def _environment_error(logged: Failure, root: str) -> bool:
    """An OSError kind raised outside the workspace's code (the network refused a library)."""
    raised_in = logged.frames[-1].path
    return logged.exc_type in ENVIRONMENT_ERRORS and not is_workspace_file(raised_in, root)


def checked_log_calls(failure: Failure) -> list[LogCall]:
    """The logging calls whose records the failing check shows: a record's repr (its path and
    line) or its line in pytest's format (`caplog.text`: the file's name and line)."""
    calls = [LogCall(m["path"], int(m["line"])) for m in RECORD_REPR.finditer(failure.message)]
    calls += [LogCall(m["file"], int(m["line"])) for m in RECORD.finditer(_unquoted(failure))]
    return list(dict.fromkeys(calls))


def _unquoted(failure: Failure) -> str:
    """The message with the escaped line breaks of its reprs (`'...\\nWARNING  x:y.py:3 z'`)
    made real, so that each shown log line starts a line."""
    return failure.message.replace("\\n", "\n").replace("'", "\n")


def resolve_file(call: LogCall, ran: list[str]) -> str | None:
    """The absolute path of a log call's file: its own when absolute, else the one file of that
    name among those the test ran (`ran`: absolute paths); None when none or several are."""
    if os.path.isabs(call.path):
        return call.path
    named = {path for path in ran if os.path.basename(path) == call.path}
    return named.pop() if len(named) == 1 else None
