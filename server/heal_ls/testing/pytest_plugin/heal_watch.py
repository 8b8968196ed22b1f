"""Runtime watchers for the heal-ls pytest plugin: which functions ran, and hanging tests.

Stdlib only.
"""

import faulthandler
import os
import sys
import threading
import time


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
