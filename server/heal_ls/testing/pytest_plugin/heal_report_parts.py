"""Pieces of the heal-ls pytest plugin: path rules, frames, safe reprs, call tracing, watchdog.

Stdlib only. Frames are dicts {"path", "line", "function", "locals"}, innermost last.
"""

import builtins
import faulthandler
import os
import reprlib
import sys
import threading
import time

import _pytest
import pluggy

NOT_WORKSPACE_DIRS = {"site-packages", "dist-packages", ".venv", "venv", ".tox", ".nox", ".git"}
RUNNER_DIRS = tuple(
    os.path.dirname(os.path.realpath(m.__file__)) + os.sep for m in (_pytest, pluggy)
) + (os.path.dirname(os.path.realpath(__file__)) + os.sep,)
EXCEPTION_GROUP = getattr(builtins, "BaseExceptionGroup", ())  # Python 3.11+
MAX_LOCALS = 25
MAX_LOCALS_FRAMES = 8
REPR_LIMIT = 200
TEXT_LIMIT = 8000

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


class PathRules:
    """Which files are workspace code, test code, or the test runner's own machinery."""

    def __init__(self, root, rootdir=None):
        self.root = os.path.realpath(root) + os.sep
        self.rootdir = rootdir or root
        self._real = {}

    def real(self, path):
        real = self._real.get(path)
        if real is None:
            real = self._real[path] = os.path.realpath(path)
        return real

    def is_workspace(self, path):
        if path.startswith("<"):  # <string>, <frozen os>, <stdin>: not files
            return False
        real = self.real(path)
        if not real.startswith(self.root):
            return False
        return not NOT_WORKSPACE_DIRS.intersection(real[len(self.root) :].split(os.sep))

    def is_test_file(self, path):
        name = os.path.basename(path)
        if name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py":
            return True
        parts = self.real(path)[len(self.root) :].split(os.sep)[:-1]
        return "tests" in parts or "test" in parts

    def is_runner(self, path):
        return path.startswith("<frozen") or self.real(path).startswith(RUNNER_DIRS)


def frame_dict(frame, line, with_locals):
    filename = frame.f_code.co_filename
    path = filename if filename.startswith("<") else os.path.abspath(filename)
    out = {"path": path, "line": line}
    out["function"] = frame.f_code.co_name
    out["locals"] = frame_locals(frame) if with_locals else {}
    return out


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
    """(frame, line) pairs, outermost first -> frame dicts without pytest's own prefix."""
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
    return [frame_dict(f, line, i in with_locals) for i, (f, line) in enumerate(entries)]


def traceback_frames(tb, paths, trim=True):
    entries = []
    while tb is not None:
        entries.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    if not trim:
        return [
            frame_dict(f, line, paths.is_workspace(f.f_code.co_filename)) for f, line in entries
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


def make_failure(nodeid, exc_type, message, frames, rec):
    """A Failure-shaped dict (see heal_ls.models.Failure) for a test record."""
    test_path = rec["path"]
    in_test = [
        f["line"] for f in frames if os.path.realpath(f["path"]) == os.path.realpath(test_path)
    ]
    return {
        "id": nodeid, "test": nodeid, "exc_type": exc_type, "message": message,
        "frames": frames, "stdout": "", "duration": 0.0, "timed_out": False,
        "test_path": test_path, "test_line": in_test[-1] if in_test else rec["line"],
        "covered": [],
    }  # fmt: skip


def failure_from_exception(exc, item, paths, tb):
    path, line = item_location(item)
    rec = {"path": path, "line": line}
    frames = traceback_frames(tb, paths)
    while isinstance(exc, EXCEPTION_GROUP) and exc.exceptions:
        # The group was raised where the errors were gathered; the first leaf holds the bug.
        exc = exc.exceptions[0]
        frames += traceback_frames(exc.__traceback__, paths, trim=False)
    return make_failure(item.nodeid, type(exc).__name__, safe_str(exc), frames, rec)


def collect_failure(report, excinfo, paths):
    """A Failure-shaped dict for a collection error (import error, syntax error, bad conftest)."""
    relpath = report.nodeid.split("::")[0]
    path = os.path.abspath(os.path.join(paths.rootdir, relpath)) if relpath else None
    exc = excinfo.value if excinfo is not None else None
    if type(exc).__name__ == "ConftestImportFailure":
        path, exc = os.path.abspath(str(exc.path)), exc.cause
    while type(exc).__name__ == "CollectError" and exc.__cause__ is not None:
        exc = exc.__cause__
    frames = traceback_frames(exc.__traceback__, paths) if exc is not None else []
    frames = [f for f in frames if paths.is_workspace(f["path"])]  # not the import machinery
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        frames.append({"path": os.path.abspath(exc.filename), "line": exc.lineno,
                       "function": "<module>", "locals": {}})  # fmt: skip
    message = safe_str(exc) if exc is not None else bounded_text(report.longreprtext)
    rec = {"path": path or "", "line": None}
    failure = make_failure(f"collect:{relpath or path}", type(exc).__name__ if exc else "CollectError",
                           message, frames, rec)  # fmt: skip
    failure.update(test=None, test_path=path, stdout=bounded_text(report.longreprtext))
    return failure


class CallTracer:
    """Records workspace functions (outside test files) that run, as "abs_path:first_line".

    A global trace function that returns None sees only 'call' events, never lines; each code
    object is judged once (cached), so the per-call cost is one dict lookup and one set add.
    """

    def __init__(self, paths):
        self.paths = paths
        self.keys = {}
        self.hits = set()
        self.active = False
        self.depth = 0

    def _key(self, code):
        name, filename = code.co_name, code.co_filename
        if name.startswith("<") or not self.paths.is_workspace(filename):
            return None
        if self.paths.is_test_file(filename):
            return None
        return f"{os.path.abspath(filename)}:{code.co_firstlineno}"

    def _trace(self, frame, event, arg):
        code = frame.f_code
        try:
            key = self.keys[code]
        except KeyError:
            key = self.keys[code] = self._key(code)
        if key is not None:
            self.hits.add(key)

    def reset(self):
        self.hits = set()

    def start(self):
        """Begin (or nest) tracing; fixtures can set up inside other traced code."""
        self.depth += 1
        if self.depth == 1:
            self.active = sys.gettrace() is None  # never fight a debugger or coverage.py
            if self.active:
                threading.settrace(self._trace)
                sys.settrace(self._trace)

    def stop(self):
        self.depth -= 1
        if self.depth == 0 and self.active:
            sys.settrace(None)
            threading.settrace(None)
            self.active = False

    def collected(self):
        return sorted(self.hits)


class Watchdog:
    """Calls on_timeout(thread_id, give_up) from its own thread when the armed test overruns.

    First call: give_up=False (record the stack, interrupt the test). If the test still runs
    after a grace period: give_up=True. The thread polls a few times a second instead of being
    woken per test, so arming costs two attribute writes. faulthandler is the backstop for
    code that holds the GIL (where no Python thread can run).
    """

    POLL = 0.2

    def __init__(self, on_timeout, stuck_file=None):
        self.on_timeout = on_timeout
        self.stuck_file = stuck_file
        self.deadline = None  # (monotonic deadline, thread id, stage) while a test runs
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        threading.Thread(target=self._run, name="heal-ls-watchdog", daemon=True).start()

    def arm(self, seconds):
        self.grace = max(1.0, min(5.0, seconds))
        with self.lock:
            self.deadline = (time.monotonic() + seconds, threading.get_ident(), 0)
        if self.stuck_file is not None:
            later = seconds + 2 * self.grace + 1
            faulthandler.dump_traceback_later(later, exit=True, file=self.stuck_file)

    def disarm(self):
        with self.lock:
            self.deadline = None
        if self.stuck_file is not None:
            faulthandler.cancel_dump_traceback_later()

    def stop(self):
        self.disarm()
        self.stopped.set()

    def _run(self):
        while not self.stopped.wait(self.POLL):
            armed = self.deadline
            if armed is None or time.monotonic() < armed[0]:
                continue
            with self.lock:
                if self.deadline is not armed:  # the test ended (or another began) meanwhile
                    continue
                _, thread_id, stage = armed
                self.deadline = (time.monotonic() + self.grace, thread_id, stage + 1)
            self.on_timeout(thread_id, stage > 0)
