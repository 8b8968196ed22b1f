"""Runtime watchers for the heal-ls pytest plugin: which functions ran, and hanging tests.

Stdlib only.
"""

import faulthandler
import os
import sys
import threading
import time

MOCK_FILE = os.path.join("unittest", "mock.py")
MOCK_CALL_NAMES = ("_increment_mock_call", "_mock_call")  # 3.8+, and 3.7's only one


class CallTracer:
    """Records workspace functions (outside test files) that run, as "abs_path:first_line".

    A global trace function that returns None sees only 'call' events, never lines; each code
    object is judged once (cached), so the per-call cost is one dict lookup and one set add.
    """

    MOCK_CALL = object()  # the key of unittest.mock's call bookkeeping: record who called it

    def __init__(self, paths):
        self.paths = paths
        self.keys = {}
        self.hits = set()
        self.mock_calls = {}  # id(mock) -> {workspace caller key: None}, in call order
        self.active = False
        self.depth = 0

    def _key(self, code):
        name, filename = code.co_name, code.co_filename
        if name in MOCK_CALL_NAMES and filename.endswith(MOCK_FILE):
            return self.MOCK_CALL
        if name.startswith("<") or not self.paths.is_workspace(filename):
            return None
        if self.paths.is_test_file(filename):
            return None
        return f"{os.path.abspath(filename)}:{code.co_firstlineno}"

    def _make_trace(self):
        """The trace function, with everything it touches bound to locals: it runs on every
        Python call while a test runs, so each attribute lookup saved counts."""
        keys, key_of, hit, mock_call = self.keys, self._key, self.hits.add, self.MOCK_CALL
        record_mock_call = self._record_mock_call

        def trace(frame, event, arg):
            code = frame.f_code
            key = keys.get(code, keys)  # the dict itself marks "not judged yet"
            if key is keys:
                key = keys[code] = key_of(code)
            if key is not None:
                if key is mock_call:
                    record_mock_call(frame)
                else:
                    hit(key)

        return trace

    def _record_mock_call(self, frame):
        """Which workspace function (outside tests) called this mock: the first such frame out."""
        mock = frame.f_locals.get("self")
        caller = frame.f_back
        while caller is not None:
            filename = caller.f_code.co_filename
            if not filename.endswith(MOCK_FILE) and self.paths.is_workspace(filename):
                if not self.paths.is_test_file(filename):
                    key = self._key(caller.f_code)
                    if key is not None:
                        self.mock_calls.setdefault(id(mock), {})[key] = None
                return
            caller = caller.f_back

    def mock_callers(self, tb):
        """Keys of the workspace functions that called the mock a failed mock assertion checked
        (the `self` of a unittest.mock frame in `tb`), in call order; [] for other failures."""
        while tb is not None:
            frame = tb.tb_frame
            if frame.f_code.co_filename.endswith(MOCK_FILE):
                found = self.mock_calls.get(id(frame.f_locals.get("self")))
                if found:
                    return list(found)
            tb = tb.tb_next
        return []

    def reset(self):
        self.hits.clear()  # cleared, not replaced: the trace function holds its `add`
        self.mock_calls = {}

    def start(self):
        """Begin (or nest) tracing; fixtures can set up inside other traced code."""
        self.depth += 1
        if self.depth == 1:
            self.active = sys.gettrace() is None  # never fight a debugger or coverage.py
            if self.active:
                trace = self._make_trace()
                threading.settrace(trace)
                sys.settrace(trace)

    def stop(self):
        self.depth -= 1
        if self.depth == 0 and self.active:
            sys.settrace(None)
            threading.settrace(None)
            self.active = False

    def collected(self):
        return sorted(self.hits)


class Watchdog:
    """Calls on_timeout(token, thread_id, give_up) from its own thread when a test overruns.

    First call: give_up=False (record the stack, interrupt the test). If the test still runs
    after a grace period: give_up=True. The thread polls a few times a second instead of being
    woken per test, so arming costs two attribute writes. faulthandler is the backstop for
    code that holds the GIL (where no Python thread can run).
    """

    POLL = 0.2

    def __init__(self, on_timeout, stuck_file=None):
        self.on_timeout = on_timeout
        self.stuck_file = stuck_file
        self.deadline = None  # (monotonic deadline, thread id, stage, token) while a test runs
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        threading.Thread(target=self._run, name="heal-ls-watchdog", daemon=True).start()

    def arm(self, seconds, token=None):
        """Watch the calling thread; `token` (the test's record) is handed back on timeout."""
        self.grace = max(1.0, min(5.0, seconds))
        with self.lock:
            self.deadline = (time.monotonic() + seconds, threading.get_ident(), 0, token)
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
                _, thread_id, stage, token = armed
                self.deadline = (time.monotonic() + self.grace, thread_id, stage + 1, token)
            self.on_timeout(token, thread_id, stage > 0)
