"""heal-ls pytest plugin: one JSON line per test, with frames, locals and covered functions.

Stdlib only (plus pytest itself): heal-ls puts this folder on PYTHONPATH and passes
`-p heal_pytest_plugin`. Its settings (environment variables, read when pytest starts, not at
import time, so a warm process that imported this module earlier still sees each run's values),
its option `--heal-exclude NODEID` and its report lines are described in heal_protocol.py.
"""

import faulthandler
import os
import signal
import sys
import threading

import heal_cov
import heal_env
import heal_importers
import heal_interrupt
import heal_overlay
import heal_protocol as wire
import heal_report_parts as parts
import heal_select
import heal_watch
import heal_xdist
import pytest
from heal_exchange import open_kept

DUMP_SIGNAL = getattr(signal, "SIGUSR1", None)  # the runner asks for all stacks before a kill
ABORT_EXIT_CODE = 70  # the process ended itself because a timed-out test would not stop


def pytest_addoption(parser, pluginmanager):
    _install_importers(pluginmanager.get_plugin("pytestconfig"))
    parser.addoption(
        heal_env.EXCLUDE_OPTION,
        action="append",
        default=[],
        metavar="NODEID",
        help="heal-ls: deselect exactly this test id (--deselect would match it as a prefix)",
    )


def pytest_collection_modifyitems(config, items):
    heal_select.deselect(config, items, set(config.getoption(heal_env.EXCLUDE_OPTION)))


def _install_importers(early_config):
    """The overlay's and the recorder's import hooks, before any workspace module is imported:
    from pytest_addoption (see heal_overlay.install_from_environment), not
    pytest_load_initial_conftests, which comes after installed packages' plugins imported theirs,
    so a workspace that is a pytest plugin ran unrecorded, its functions no test's evidence.
    Installed earlier by heal_pytest_main (heal_importers.py), they go back ahead of pytest's
    assertion rewriter, put first since, as they are when installed here: an unsaved test file
    is served too."""
    early = heal_importers.take_early()
    overlay, recorder = early or heal_importers.importers()
    if early is not None:
        for finder in (overlay, recorder.finder if recorder else None):
            if finder in sys.meta_path:
                sys.meta_path.remove(finder)
                sys.meta_path.insert(0, finder)
    early_config._heal_overlay = overlay
    early_config._heal_recorder = recorder


def pytest_configure(config):
    heal_cov.leave_alone(config)
    report = os.environ.get(heal_env.REPORT)
    if not report:
        return
    if os.environ.get(heal_env.SERIAL) == "1":
        heal_xdist.run_in_process(config)
    if heal_xdist.distributing(config):
        _drop_recorder(config)
    timeout = float(os.environ.get(heal_env.TEST_TIMEOUT) or 0)
    recorder, paths = getattr(config, "_heal_recorder", None), _path_rules(config)
    worker = heal_xdist.worker_id(config)
    reporter = HealReporter(report, paths, timeout, recorder, worker)
    if worker is not None:  # its rows go to the controller, on its reports
        config.pluginmanager.register(heal_xdist.WorkerRows(reporter.pending), "heal-ls-rows")
    else:
        reporter.mac = parts.take_seal(os.environ.pop(heal_env.SEAL, None))
    if heal_xdist.distributing(config):
        config.pluginmanager.register(heal_xdist.Relay(reporter.emit, paths), "heal-ls-relay")
    config.pluginmanager.register(reporter, "heal-ls-reporter")
    if reporter.interrupter is not None:
        config.pluginmanager.register(reporter.interrupter, "heal-ls-interrupter")


def _drop_recorder(config):
    """xdist's controller runs no test: its recorder goes before the workers start, so they do
    not inherit its CHILD_HITS and start as a recorded test's children (a second recording
    finder on every import of theirs, hits kept for nobody); each worker records on its own."""
    recorder = getattr(config, "_heal_recorder", None)
    if recorder is not None:
        recorder.close()
        config._heal_recorder = None


def _path_rules(config):
    return parts.PathRules(heal_importers.root(), str(config.rootpath))


def pytest_unconfigure(config):
    finder = getattr(config, "_heal_overlay", None)
    if finder is not None:
        heal_overlay.uninstall(finder)
    recorder = getattr(config, "_heal_recorder", None)
    if recorder is not None:
        recorder.close()


class HealReporter:
    def __init__(self, report_path, paths, timeout, recorder, worker=None):
        # An xdist worker keeps its rows in `pending` for heal_xdist; the controller writes them.
        self.out = None if worker else open_kept(report_path)
        self.pending = []
        self.paths = paths
        self.timeout = timeout
        self.recorder = recorder  # None: the run records no function coverage
        self.watchdog = None
        self.interrupter = None  # raises the timeout in the stuck test (heal_interrupt.py)
        # faulthandler writes stacks here: when even the watchdog thread cannot run (GIL held
        # in C), and when the runner sends DUMP_SIGNAL before killing a run that overran.
        stuck = f"{report_path}.{worker}.stuck" if worker else report_path + ".stuck"
        self.stuck_file = open_kept(stuck)
        if DUMP_SIGNAL and threading.current_thread() is threading.main_thread():
            faulthandler.register(DUMP_SIGNAL, file=self.stuck_file, all_threads=True)
        if timeout > 0:
            self.watchdog = heal_watch.Watchdog(self._on_timeout, self.stuck_file)
            message = f"heal-ls: test did not finish within {timeout:g} s"
            self.interrupter = heal_interrupt.Interrupter(message)
        self.record = None
        self.item = None  # the item of `record`
        self.call_error = None  # (exception, traceback) its call phase ended with, if any
        self.import_covered = []
        self.shared_setups = {}  # a broader-than-test fixture -> the hits of its latest setup
        self.mac = None  # set by pytest_configure when the run is sealed
        self.written = 0  # test lines, for the session line's count

    def emit(self, line):
        """Write one report line (a heal_protocol dataclass); an xdist worker keeps it encoded
        for the controller (heal_xdist.Relay decodes it and emits it there)."""
        if self.out is None:
            self.pending.append(wire.encode(line))
            return
        session = type(line) is wire.Session
        if session and self.mac is not None:
            line.seal = self.mac.hexdigest()
        self.written += type(line) is wire.TestLine
        text = wire.encode(line)
        if self.mac is not None and not session:  # the HMAC covers exactly the bytes written
            self.mac.update(text.encode("utf-8") + b"\n")
        self.out.write(text + "\n")
        self.out.flush()  # survive a kill: every finished test is already on disk

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        path, line = parts.item_location(item)
        self.record = rec = wire.TestLine(item.nodeid, "passed", 0.0, path, line, [], None, "")
        self.item, self.call_error = item, None
        self.emit(wire.Start(item.nodeid))
        if self.recorder:
            self.recorder.reset()
        if self.watchdog:
            self.watchdog.arm(self.timeout, rec)
        outcome = yield
        if self.record is not rec:  # an xdist worker finished it with its teardown report
            return
        if outcome.excinfo is not None:  # KeyboardInterrupt, pytest.exit(): never a pass
            self._interrupted(item, rec, outcome.excinfo)
        self._finish(rec)

    def pytest_collectstart(self, collector):
        """A test module is a test file before it imports: it is not instrumented as code, keeps
        pytest's assert rewriting, and its frames are the test's. Exactly pytest.Module: a
        module's doctests (DoctestModule, a subclass) leave it code."""
        if type(collector) is pytest.Module:
            path = str(getattr(collector, "path", None) or collector.fspath)  # pytest < 7: fspath
            self.paths.collects_tests(path)
            if self.recorder:
                self.recorder.paths.collects_tests(path)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_collection(self, session):
        """Functions that run while test modules import workspace code (module-level tables
        built by calls): a failure may come from data they made before any test ran."""
        if self.recorder:
            self.recorder.reset()
            self.recorder.start()
        yield
        if self.recorder:
            self.recorder.stop()
            self.import_covered = self.recorder.collected()

    # Recording only while test and fixture code runs, not pytest's own collection around it.
    # The call phase of every item kind (pytest functions, unittest TestCase methods with their
    # setUp/tearDown, doctests): pytest_pyfunc_call is never called for the last two.
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        if self.recorder:
            self.recorder.start()
        outcome = yield
        heal_watch.numbered(outcome)  # a timeout may leave a line-less entry
        if self.recorder:
            self.recorder.stop()
        self.call_error = parts.call_error(outcome, item)

    # A fixture broader than a test (module, class, session scope; unittest's setUpClass is one)
    # sets up once, inside the first test that uses it: its setup's hits are kept apart and
    # counted for every test that uses it, which ran that setup as much as the first did.
    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        shared = fixturedef.scope != "function"
        if self.recorder and shared:
            self.recorder.start_apart()
        elif self.recorder:
            self.recorder.start()
        heal_watch.numbered((yield))  # a timeout may leave a line-less entry
        if self.recorder and shared:
            self.shared_setups[fixturedef] = self.recorder.stop_apart()
        elif self.recorder:
            self.recorder.stop()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item):
        yield
        if self.recorder:
            for fixturedef in parts.fixtures_used(item):
                self.recorder.credit(self.shared_setups.get(fixturedef, frozenset()))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report, rec = outcome.get_result(), self.record
        # What a test printed is cut (head and tail, with a marker) before pytest's summary
        # repeats it: 100 MB of prints must not become 100 MB of run output.
        report.sections = [
            (title, parts.bounded_text(text, parts.CAPTURE_LIMIT))
            for title, text in report.sections
        ]
        if rec is None:
            return
        rec.duration += report.duration
        if call.when == "call":
            rec.call = report.outcome
        # Each phase's report carries the sections of the phases before it: keep the latest.
        rec.stdout = "".join(f"--- {title} ---\n{text}" for title, text in report.sections)
        if report.skipped and rec.outcome == "passed":
            rec.outcome = "skipped"
        if hasattr(report, "wasxfail"):  # pytest counts xfailed and xpassed apart
            rec.xfail = True
        if report.failed:
            if rec.outcome not in ("failed", "error"):
                timed_out = rec.failure is not None and rec.failure.timed_out
                rec.outcome = "failed" if call.when == "call" or timed_out else "error"
            if rec.failure is None and call.excinfo is not None:
                rec.failure = failure = parts.failure_from_exception(
                    call.excinfo.value, item, self.paths, call.excinfo.tb
                )
                failure.when = call.when  # setup/teardown: pytest's "error"
                if self.recorder:
                    failure.mock_callers = self.recorder.mock_callers(call.excinfo.tb)
                    failure.import_covered = self.import_covered
        if call.when == "teardown" and self.out is None:  # this report carries the row
            self._finish(rec)

    def _interrupted(self, item, rec, excinfo):
        if rec.failure is None:
            _, exc, tb = excinfo
            rec.failure = parts.failure_from_exception(exc, item, self.paths, tb)
        rec.outcome, rec.interrupted = "failed", True

    def _finish(self, rec):
        self.record = None
        if self.recorder:
            rec.covered, rec.blocks = self.recorder.collected_with_blocks()
        if self.watchdog:
            self.watchdog.disarm()
        rec.stdout = parts.bounded_text(rec.stdout)
        failure = rec.failure
        if failure is not None:
            failure.duration, failure.covered = rec.duration, rec.covered
            failure.blocks, failure.stdout = rec.blocks, rec.stdout
        self.emit(rec)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_make_collect_report(self, collector):
        failure = parts.collect_outcome((yield), collector, self.paths)
        if failure is not None:
            self.emit(wire.CollectError(failure))

    def pytest_collection_finish(self, session):
        # how many tests will run: lets a live view say "12/300" while the report grows
        self.emit(wire.Collected(len(session.items)))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session, exitstatus):
        self.emit(wire.Session(int(exitstatus), self.written))

    def pytest_unconfigure(self, config):
        if self.watchdog:
            self.watchdog.stop()
        if DUMP_SIGNAL and threading.current_thread() is threading.main_thread():
            faulthandler.unregister(DUMP_SIGNAL)
        self.stuck_file.close()
        if self.interrupter is not None:
            self.interrupter.uninstall()
        if self.out is not None:
            self.out.close()

    # --- hanging tests -------------------------------------------------------------------

    def _on_timeout(self, rec, thread_id, give_up):
        """Called in the watchdog thread: record where the test is stuck, then stop it."""
        if rec is not self.record:  # that test has just finished after all
            return
        if self.interrupter.reporting():  # its call ended in time: its own outcome stands
            if give_up:
                self._give_up_reporting(rec)
            return
        if give_up and rec.failure is not None and rec.failure.timed_out:
            # it did not stop after the interrupt: keep the report, end the process
            self.emit(wire.Abort(rec.nodeid))
            os._exit(ABORT_EXIT_CODE)
        # the reprs of the stuck frames' locals (workspace __repr__s) are not what the test ran
        stack = self._unrecorded(parts.stack_frames)
        frames = stack(sys._current_frames().get(thread_id), self.paths)
        message = f"test did not finish within {self.timeout:g} s"
        failure = parts.make_failure(rec.nodeid, "Timeout", message, frames, rec.path, rec.line)
        failure.timed_out = True
        rec.failure, rec.outcome = failure, "failed"
        self.emit(wire.Timeout(rec.nodeid, failure))
        self.interrupter.interrupt(thread_id)

    def _give_up_reporting(self, rec):
        """The test's call ended, its report did not (a report hook of the user's that never
        returns, pytest formatting a very deep traceback): write the test with the outcome its
        call decided, then end the process as for a test that would not stop."""
        if rec.failure is None and self.call_error is not None:
            exc, tb = self.call_error
            build = self._unrecorded(parts.failure_from_exception)
            rec.failure = build(exc, self.item, self.paths, tb)
            rec.failure.when = "call"
        if rec.call is None:
            rec.call = parts.call_outcome(self.call_error)
        if rec.outcome == "passed" and rec.call != "passed":
            rec.outcome = rec.call
        self._finish(rec)
        self.emit(wire.Abort(rec.nodeid))
        os._exit(ABORT_EXIT_CODE)

    def _unrecorded(self, function):
        return self.recorder.unrecorded(function) if self.recorder else function
