"""The per-test timeout's interrupt: raised in the stuck test only while one of its phases runs.

The watchdog (heal_watch.Watchdog, on its own thread) asks for the interrupt; a signal raises it
in the test's thread. pytest catches what a test's setup, call or teardown raises and reports
it; what pytest's own code around them raises (building a failure's report, a report hook of
the user's, logging the result) ends the whole session with an INTERNALERROR. So an interrupt
that arrives between the phases waits: the test's next setup or call starts by raising it; a
teardown is never cut short before it starts (the fixtures' finalizers undo what their setup
did, and pytest's next test needs them done). The test's report is the timeout either way:
the plugin records it when the watchdog fires. Once the call has ended, the test's outcome is
decided and nothing of it is left to interrupt (`reporting`): a timeout that comes while pytest
or a hook of the user's reports it leaves the test's own outcome alone. Stdlib and pytest only.
"""

import signal
import threading

import pytest

SIGNAL = getattr(signal, "SIGUSR2", None)


class TestTimeout(pytest.fail.Exception.__base__):  # type: ignore[name-defined]
    """Raised in the stuck test; pytest reports it as a failure. An OutcomeException but not a
    `Failed`: hypothesis takes `Failed` (with Exception, SystemExit and GeneratorExit) for a
    failing example and reruns the test to shrink it, each run as long as the first; anything
    else it re-raises at once. pytest's teardown still catches it per finalizer."""


class Interrupter:
    """Raises TestTimeout in the running test when asked (`interrupt`), as soon as the test is
    in one of its phases. Registered as a pytest plugin; its phase wrappers are innermost
    (trylast), so the other plugins' wrappers (capture, logging) are never cut in half."""

    def __init__(self, message):
        self.message = message
        self.running = None  # the item whose runtest protocol runs
        self.due = None  # the item to interrupt, asked for and not yet raised
        self.in_phase = False
        self.call_ended = None  # the item whose call phase has ended: its outcome is decided
        self.previous_handler = None
        self.installed = (
            SIGNAL is not None and threading.current_thread() is threading.main_thread()
        )
        if self.installed:
            self.previous_handler = signal.signal(SIGNAL, self._on_signal)

    def interrupt(self, thread_id):
        """Called from the watchdog's thread: stop the test that runs now."""
        self.due = self.running
        if self.installed and self.due is not None:
            signal.pthread_kill(thread_id, SIGNAL)

    def uninstall(self):
        if self.installed:
            signal.signal(SIGNAL, self.previous_handler or signal.SIG_DFL)
            self.installed = False

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self.running, self.due, self.call_ended = item, None, None
        yield
        self.running = self.due = self.call_ended = None

    def reporting(self):
        """Has the running test's call ended, with none of its phases running now? Then pytest,
        or a report hook of the user's, is reporting an outcome the call already decided."""
        running = self.running
        return running is not None and self.call_ended is running and not self.in_phase

    @pytest.hookimpl(hookwrapper=True, trylast=True)
    def pytest_runtest_setup(self, item):
        yield from self._interruptible(item, starts=True)

    @pytest.hookimpl(hookwrapper=True, trylast=True)
    def pytest_runtest_call(self, item):
        try:
            yield from self._interruptible(item, starts=True)
        finally:
            self.call_ended = item

    @pytest.hookimpl(hookwrapper=True, trylast=True)
    def pytest_runtest_teardown(self, item):
        yield from self._interruptible(item, starts=False)

    def _interruptible(self, item, starts):
        """The phase, interrupted when the signal comes while it runs. One asked for between
        the phases interrupts a setup or a call as it `starts`; a teardown runs whole."""
        if not starts and self.due is item:
            self.due = None
        self.in_phase = True
        try:
            if starts and self.due is item:
                self.due = None
                raise TestTimeout(self.message)
            yield
        finally:
            self.in_phase = False

    def _on_signal(self, signum, frame):
        if self.due is None:  # not ours
            if callable(self.previous_handler):
                self.previous_handler(signum, frame)
            return
        if self.due is not self.running:  # that test ended meanwhile
            self.due = None
        elif self.in_phase:
            self.due = None
            raise TestTimeout(self.message)
