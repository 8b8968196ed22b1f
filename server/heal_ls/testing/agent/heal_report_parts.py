"""Pieces of the heal-ls pytest plugin: path rules, frames, safe reprs, failure records,
the report's seal.

Stdlib only. Frames are dicts {"path", "line", "function", "locals"}, innermost last.
"""

import builtins
import hmac
import os
import reprlib

import _pytest
import heal_paths
import heal_protocol as wire
import pluggy
import pytest
from heal_caught import caught_entries

RUNNER_DIRS = tuple(
    os.path.dirname(os.path.realpath(str(m.__file__))) + os.sep for m in (_pytest, pluggy)
) + (os.path.dirname(os.path.realpath(__file__)) + os.sep,)
EXCEPTION_GROUP = getattr(builtins, "BaseExceptionGroup", ())  # Python 3.11+
MAX_LOCALS = 25
MAX_LOCALS_FRAMES = 8
REPR_LIMIT = 200
TEXT_LIMIT = 8000
MAX_CHAIN = 4  # exceptions kept of a chain (`raise X from err`, raised while handling)
MAX_CHAIN_FRAMES = 20  # the innermost frames kept of each: where it was raised
CAPTURE_LIMIT = 64000  # characters of one captured section (stdout, stderr, log) pytest prints

_repr = reprlib.Repr()
_repr.maxstring = _repr.maxother = REPR_LIMIT
_repr.maxlist = _repr.maxtuple = _repr.maxdict = _repr.maxset = 12


def safe_repr(value, limit=REPR_LIMIT):
    """A bounded repr that never raises, whatever the object's __repr__ does."""
    try:
        text = _repr.repr(value)
    except BaseException as exc:  # a broken __repr__ must not break the report
        text = f"<repr failed: {type(exc).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def safe_str(value, limit=4000):
    try:
        text = str(value)
    except BaseException as exc:
        text = f"<str failed: {type(exc).__name__}>"
    return bounded_text(text, limit)


def bounded_text(text, limit=TEXT_LIMIT):
    """Keep the head and the (more useful) tail of long output."""
    if len(text) <= limit:
        return text
    head, tail = limit // 4, limit - limit // 4
    return f"{text[:head]}\n... [{len(text) - limit} characters cut] ...\n{text[-tail:]}"


class PathRules(heal_paths.WorkspacePaths):
    """Which files are workspace code, test code, or the test runner's own machinery."""

    def is_runner(self, path):
        return path.startswith("<frozen") or self.real(path).startswith(RUNNER_DIRS)


def frame_record(frame, line, with_locals):
    filename = frame.f_code.co_filename
    path = filename if filename.startswith("<") else os.path.abspath(filename)
    found = frame_locals(frame) if with_locals else {}
    return wire.FrameRecord(path, line, frame.f_code.co_name, found)


def frame_locals(frame):
    found = {}
    for name, value in list(frame.f_locals.items()):
        if name.startswith(("@", "__")):  # pytest's assertion temporaries, dunders
            continue
        if len(found) >= MAX_LOCALS:
            found["..."] = "more locals not shown"
            break
        found[name] = safe_repr(value)
    return found


def trimmed_frames(entries, paths):
    """(frame, line) pairs, outermost first -> FrameRecords without pytest's own prefix."""
    entries = [e for e in entries if not e[0].f_code.co_filename.startswith("<frozen importlib")]
    first = next(
        (i for i, e in enumerate(entries) if paths.is_workspace(e[0].f_code.co_filename)), None
    )
    if first is None:
        first = next(
            (i for i, e in enumerate(entries) if not paths.is_runner(e[0].f_code.co_filename)), 0
        )
    entries = entries[first:]
    workspace = [i for i, e in enumerate(entries) if paths.is_workspace(e[0].f_code.co_filename)]
    with_locals = set(workspace[-MAX_LOCALS_FRAMES:])
    return [frame_record(f, line, i in with_locals) for i, (f, line) in enumerate(entries)]


def traceback_frames(tb, paths, trim=True):
    entries = []
    while tb is not None:
        entries.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    if not trim:
        return [
            frame_record(f, line, paths.is_workspace(f.f_code.co_filename)) for f, line in entries
        ]
    return trimmed_frames(entries, paths)


def stack_frames(frame, paths):
    entries = []
    while frame is not None:
        entries.append((frame, frame.f_lineno))
        frame = frame.f_back
    return trimmed_frames(entries[::-1], paths)


def item_location(item):
    path = os.path.abspath(str(item.path))
    line = item.location[1]
    return path, (line + 1 if line is not None else None)


def fixtures_used(item):
    """The fixture definitions `item` uses: for each fixture name it needs, the definition in
    force, and the one it overrides when it asks for its own name (pytest's request chain)."""
    info = getattr(item, "_fixtureinfo", None)
    used = []
    for name in getattr(info, "names_closure", ()):
        definitions = info.name2fixturedefs.get(name, ())
        for definition in reversed(definitions):
            used.append(definition)
            if name not in definition.argnames:
                break
    return used


def make_failure(nodeid, exc_type, message, frames, test_path, line):
    """The FailureRecord of a test at `test_path`:`line`."""
    in_test = [f.line for f in frames if os.path.realpath(f.path) == os.path.realpath(test_path)]
    test_line = in_test[-1] if in_test else line
    return wire.FailureRecord(nodeid, exc_type, message, frames, nodeid, test_path, test_line)


def failure_from_exception(exc, item, paths, tb):
    path, line = item_location(item)
    frames = traceback_frames(tb, paths)
    while isinstance(exc, EXCEPTION_GROUP) and exc.exceptions:
        # The group was raised where the errors were gathered; the first leaf holds the bug.
        exc = exc.exceptions[0]
        frames += traceback_frames(exc.__traceback__, paths, trim=False)
    failure = make_failure(item.nodeid, type(exc).__name__, safe_str(exc), frames, path, line)
    try:  # it reads the test's objects: whatever they do, the user's run ends as pytest's would
        caught = caught_entries(exc, tb, paths)
    except Exception:
        caught = []
    failure.caught = [frame_record(f, line, False) for f, line in caught]
    failure.chain = chained_records(exc)
    return failure


def call_error(outcome, item):
    """(exception, traceback) a test's call phase ended with (its hook's `outcome`), or None. A
    unittest TestCase's failure does not leave the call: pytest keeps it on the item until the
    call's report takes it."""
    if outcome.excinfo is not None:
        return outcome.excinfo[1], outcome.excinfo[2]
    kept = getattr(item, "_excinfo", None)
    return (kept[0].value, kept[0].tb) if kept else None


def call_outcome(error):
    """The outcome pytest reports for a call that ended with `error` (call_error's)."""
    if error is None:
        return "passed"
    return "skipped" if isinstance(error[0], pytest.skip.Exception) else "failed"


def chained_records(exc):
    """The exceptions `exc` was raised while handling, nearest first, as Python prints them:
    its `__cause__`, else its `__context__` unless `raise ... from None` hid it."""
    found, seen = [], {id(exc)}
    while len(found) < MAX_CHAIN:
        cause = exc.__cause__ is not None
        if cause:
            exc = exc.__cause__
        elif exc.__suppress_context__:
            break
        else:
            exc = exc.__context__
        if exc is None or id(exc) in seen:
            break
        seen.add(id(exc))
        frames = []
        tb = exc.__traceback__
        while tb is not None:
            frames.append(frame_record(tb.tb_frame, tb.tb_lineno, False))
            tb = tb.tb_next
        message = safe_str(exc, REPR_LIMIT)
        found.append(
            wire.ChainedRecord(type(exc).__name__, message, frames[-MAX_CHAIN_FRAMES:], cause)
        )
    return found


def collect_outcome(outcome, collector, paths):
    """The FailureRecord of a collection that failed (pytest_make_collect_report's
    outcome), else None: a failed report, or a SystemExit pytest re-raises out of collection."""
    if outcome.excinfo is not None:  # SystemExit or KeyboardInterrupt
        exc = outcome.excinfo[1]
        return collect_exit(collector, exc, paths) if isinstance(exc, SystemExit) else None
    report = outcome.get_result()
    if not report.failed:
        return None
    # report.call is ours to read only here: pytest pops it right after
    excinfo = getattr(report.__dict__.get("call"), "excinfo", None)
    return collect_failure(report, excinfo, paths)


def collect_failure(report, excinfo, paths):
    """A FailureRecord for a collection error (import error, syntax error, bad conftest)."""
    exc = excinfo.value if excinfo is not None else None
    return _collect_failure(report.nodeid, exc, report.longreprtext, paths)


def collect_exit(collector, exc, paths):
    """The same for a SystemExit while a module was imported (sys.exit, argparse reading
    pytest's own argv): pytest re-raises it out of collection and stops the whole run."""
    failure = _collect_failure(collector.nodeid, exc, "", paths)
    where = collector.nodeid.split("::")[0] or "the tests"
    failure.message = f"{safe_str(exc.code)} (raised while pytest collected {where}: the run stops)"
    return failure


def _collect_failure(nodeid, exc, longreprtext, paths):
    relpath = nodeid.split("::")[0]
    path = os.path.abspath(os.path.join(paths.rootdir, relpath)) if relpath else None
    if type(exc).__name__ == "ConftestImportFailure":
        path, exc = os.path.abspath(str(exc.path)), exc.cause
    while type(exc).__name__ == "CollectError" and exc.__cause__ is not None:
        exc = exc.__cause__
    frames = traceback_frames(exc.__traceback__, paths) if exc is not None else []
    frames = [f for f in frames if paths.is_workspace(f.path)]  # not the import machinery
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        frames.append(wire.FrameRecord(os.path.abspath(exc.filename), exc.lineno, "<module>"))
    message = safe_str(exc) if exc is not None else bounded_text(longreprtext)
    failure = make_failure(f"collect:{relpath or path}", type(exc).__name__ if exc else "CollectError",
                           message, frames, path or "", None)  # fmt: skip
    failure.test, failure.test_path = None, path
    failure.stdout = bounded_text(longreprtext)
    return failure


def take_seal(path):
    """The HMAC keyed by the secret in `path`; the file is gone before any test code runs."""
    if not path:
        return None
    try:
        with open(path, "rb") as handle:
            key = handle.read()
    except OSError:
        return None
    try:
        os.unlink(path)
    except OSError:  # a read-only report folder: the seal still catches lines appended blindly
        pass
    return hmac.new(key, digestmod="sha256")
