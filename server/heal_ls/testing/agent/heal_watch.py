"""Runtime watchers for the heal-ls pytest plugin: which functions ran, and hanging tests.

Stdlib only.
"""

import faulthandler
import functools
import os
import shutil
import sys
import tempfile
import threading
import time
import types

import heal_env
import heal_hits

MOCK_FILE = os.path.join("unittest", "mock.py")
MOCK_CALL_NAMES = ("_increment_mock_call", "_mock_call")  # 3.8+, and 3.7's only one
# What a test reads off a mock to check how it was called (unittest.mock's record of calls).
CALL_RECORDS = frozenset(
    {"called", "call_count", "call_args", "call_args_list", "mock_calls", "method_calls"}
    | {"await_count", "await_args", "await_args_list"}
)
# What a failed assertion calls only to explain itself, per module: a rewritten assert's helpers
# (`@pytest_ar.<name>(...)`, looked up at call time: reprs of its operands,
# pytest_assertrepr_compare, which may call __eq__ and __repr__ again for a diff, the message, the
# pass hook), and unittest's message builders (assertEqual's reprs, assertListEqual's and
# assertDictEqual's pprint.pformat). Not evidence: recording pauses in them.
EXPLAIN_HELPERS = {
    "_pytest.assertion.rewrite": (
        "_saferepr",
        "_format_assertmsg",
        "_should_repr_global_name",
        "_format_boolop",
        "_call_reprcompare",
        "_call_assertion_pass",
        "_format_explanation",
    ),
    "unittest.case": ("safe_repr", "_common_shorten_repr", "pprint"),
}


class CallRecorder:
    """Records workspace functions (outside test files) that run, as "abs_path:first_line".

    The functions report themselves (heal_hits instruments workspace modules as they are
    imported), so no trace hook slows the rest of the process down. Calls of `unittest.mock`
    objects are recorded with the workspace function that made them, by wrapping the mock's
    call bookkeeping while recording.
    """

    def __init__(self, paths):
        self.paths = paths
        self.hits = set()
        self.mock_calls = {}  # id(mock) -> {workspace caller key: None}, in call order
        self.depth = 0
        self.paused = 0
        self.finder = heal_hits.install(paths.is_code)
        # The Python processes a test starts record into this folder (agent/sitecustomize.py).
        self.children = tempfile.mkdtemp(prefix="heal-ls-children-")
        self.environ = {k: os.environ.get(k) for k in (heal_env.CHILD_HITS, heal_env.ROOT)}
        os.environ[heal_env.CHILD_HITS] = self.children
        os.environ[heal_env.ROOT] = paths.root.rstrip(os.sep)
        self.mock_patched = False
        self.explain_originals = {}  # module -> {helper name: its own function}, while wrapped
        self.outer = []  # the hits a start_apart recording set aside, innermost last

    def _key(self, code):
        return f"{os.path.abspath(code.co_filename)}:{code.co_firstlineno}"

    def _patch_mock(self):
        """Wrap unittest.mock's call bookkeeping once it is imported (never import it: it pulls
        in asyncio); the wrapper records only while recording is on."""
        mock = sys.modules.get("unittest.mock")
        if mock is None or self.mock_patched:
            return
        self.mock_patched = True
        mixin = mock.CallableMixin
        name = next(n for n in MOCK_CALL_NAMES if hasattr(mixin, n))
        original, recorder = getattr(mixin, name), self

        def bookkeeping(mock_self, *args, **kwargs):
            if recorder.depth and not recorder.paused:
                recorder._record_mock_call(mock_self, sys._getframe(1))
            return original(mock_self, *args, **kwargs)

        setattr(mixin, name, bookkeeping)

    def _record_mock_call(self, mock, caller):
        """Which workspace function (outside tests) called this mock: the first such frame out."""
        while caller is not None:
            filename = caller.f_code.co_filename
            if not filename.endswith(MOCK_FILE) and self.paths.is_workspace(filename):
                if not self.paths.is_test_file(filename) and not caller.f_code.co_name.startswith(
                    "<"
                ):
                    self.mock_calls.setdefault(id(mock), {})[self._key(caller.f_code)] = None
                return
            caller = caller.f_back

    def _patch_explanation(self):
        """Wrap the assertions' explanation helpers of each module already imported (pytest's
        rewrite at once; unittest.case when a test module imported it)."""
        for module_name, names in EXPLAIN_HELPERS.items():
            module = sys.modules.get(module_name)
            if module is None or module_name in self.explain_originals:
                continue
            originals = self.explain_originals[module_name] = {}
            for name in names:
                helper = getattr(module, name, None)
                if isinstance(helper, types.ModuleType):  # `pprint.pformat(...)` in unittest
                    originals[name] = helper
                    setattr(
                        module, name, types.SimpleNamespace(pformat=self.unrecorded(helper.pformat))
                    )
                elif callable(helper):
                    originals[name] = helper
                    setattr(module, name, self.unrecorded(helper))

    def _unpatch_explanation(self):
        for module_name, originals in self.explain_originals.items():
            module = sys.modules.get(module_name)
            for name, helper in originals.items():
                setattr(module, name, helper)
        self.explain_originals = {}

    def unrecorded(self, function):
        """`function`, run with recording paused: what it calls is not what the test ran."""
        recorder = self

        @functools.wraps(function)
        def paused(*args, **kwargs):
            recorder.pause()
            try:
                return function(*args, **kwargs)
            finally:
                recorder.resume()

        return paused

    def pause(self):
        self.paused += 1
        heal_hits.record_into(heal_hits.OFF)

    def resume(self):
        self.paused -= 1
        self._record_into_hits()

    def mock_callers(self, tb):
        """Keys of the workspace functions that called the mock a failed mock assertion checked,
        in call order; [] for other failures. The mock is the `self` of a unittest.mock frame in
        `tb`, or the first argument of a wrapper's frame (pytest-mock re-raises the assertion
        from its own `assert_wrapper(method, attr, mock, ...)`, with no unittest.mock frame).
        When no mock's own assertion failed but the test read what its mocks recorded
        (`args, _ = mock_bisect.call_args`, then a plain `assert`), the mocks the failing test
        frame holds: a patched function (`with mock.patch(...) as m`, a decorator's argument),
        an autospec function's mock, a mock's called methods."""
        held = None
        while tb is not None:
            frame = tb.tb_frame
            if not self.paths.is_workspace(frame.f_code.co_filename):
                local = frame.f_locals
                args = local.get("args")
                first = args[0] if isinstance(args, tuple) and args else None
                for candidate in (local.get("self"), first):
                    found = self.mock_calls.get(id(candidate))
                    if found:
                        return list(found)
            elif self.reads_mock_records(frame):
                held = frame  # the innermost test frame that read a mock's record
            tb = tb.tb_next
        return self._held_mock_callers(held) if held is not None else []

    def reads_mock_records(self, frame):
        """A test's frame whose code reads what a mock recorded (`m.call_args`, `m.called`)."""
        code = frame.f_code
        return self.paths.is_test_file(code.co_filename) and bool(
            CALL_RECORDS.intersection(code.co_names)
        )

    def _held_mock_callers(self, frame):
        found = {}
        for value in list(frame.f_locals.values()):
            for mock in _mocks_of(value):
                found.update(self.mock_calls.get(id(mock), {}))
        return list(found)

    def reset(self):
        self.hits.clear()
        heal_hits.take_child_hits(self.children)  # children of an earlier test that outlived it
        self.mock_calls = {}

    def start(self):
        """Begin (or nest) recording; fixtures can set up inside other recorded code."""
        self.depth += 1
        if self.depth == 1:
            self._patch_mock()
            self._patch_explanation()
            self._record_into_hits()

    def stop(self):
        self.depth -= 1
        if self.depth == 0:
            heal_hits.record_into(heal_hits.OFF)

    def start_apart(self):
        """Begin recording into a set of its own (a fixture that outlives the test setting it
        up: its hits are every later user's too, see stop_apart)."""
        self.outer.append(self.hits)
        self.hits = set()
        self._record_into_hits()
        self.start()

    def stop_apart(self):
        """End a start_apart recording: its hits, which the running test ran too."""
        self.stop()
        apart, self.hits = self.hits, self.outer.pop()
        self.hits |= apart
        self._record_into_hits()
        return frozenset(apart)

    def credit(self, hits):
        """Count `hits` (a shared fixture's setup, run before this test) as this test's."""
        self.hits |= hits

    def _record_into_hits(self):
        """Hits go to the current set while recording is on and not paused."""
        if self.depth and not self.paused:
            heal_hits.record_into(self.hits.add)

    def close(self):
        self._unpatch_explanation()
        heal_hits.uninstall(self.finder)
        for name, value in self.environ.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(self.children, ignore_errors=True)

    def collected(self):
        """The functions' keys, sorted (the blocks' hits left out), the test's children's too."""
        return self._split_with_children()[0]

    def collected_with_blocks(self):
        """(the functions' keys, {abs_path: block lines}; None when blocks are not recorded)."""
        functions, blocks = self._split_with_children()
        return functions, blocks if heal_hits.blocks_wanted() else None

    def _split_with_children(self):
        """split_hits of this process's hits joined by those the test's children left."""
        self.hits.update(heal_hits.take_child_hits(self.children))
        return heal_hits.split_hits(self.hits)


class _Clock:
    """The real monotonic clock, taken at import: a test that fakes time (freezegun replaces
    time.monotonic, and every module global bound to it, while time is frozen) must not fire or
    hold off its own timeout. A class attribute, which freezegun's module scan does not reach."""

    monotonic = time.monotonic


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
            self.deadline = (_Clock.monotonic() + seconds, threading.get_ident(), 0, token)
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
            if armed is None or _Clock.monotonic() < armed[0]:
                continue
            with self.lock:
                if self.deadline is not armed:  # the test ended (or another began) meanwhile
                    continue
                _, thread_id, stage, token = armed
                self.deadline = (_Clock.monotonic() + self.grace, thread_id, stage + 1, token)
            self.on_timeout(token, thread_id, stage > 0)


def numbered(outcome):
    """Drop the traceback entries without a line number from a hook's exception. On Python
    3.11 an exception raised by a signal handler (a test's timeout) where the interrupted
    instruction has no line number leaves such an entry, and pytest's report of the failure
    then crashes (`None - 1`), ending the session (under xdist, a worker that stops early)."""
    exc = outcome.excinfo[1] if outcome.excinfo else None
    tb = getattr(exc, "__traceback__", None)
    entries = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    if all(entry.tb_lineno is not None for entry in entries):
        return
    rebuilt = None
    for entry in reversed([e for e in entries if e.tb_lineno is not None]):
        rebuilt = types.TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    force = getattr(outcome, "force_exception", None)  # pluggy >= 1.1 keeps its own traceback
    if force is not None:
        force(exc.with_traceback(rebuilt))


def _mocks_of(value):
    """The mocks a test's local holds: itself, an autospec function's `.mock`, and the mocks
    of its methods that were called. Read from `vars()`: asking a mock for an attribute it
    lacks would make one."""
    try:
        own = vars(value)
    except Exception:  # no __dict__, or one of the test's objects whose __dict__ is its own
        return []
    if isinstance(value, types.FunctionType):
        return [own["mock"]] if "mock" in own else []
    children = own.get("_mock_children")
    if not isinstance(children, dict):
        return []
    return [value, *children.values()]
