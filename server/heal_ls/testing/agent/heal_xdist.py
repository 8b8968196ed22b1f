"""heal-ls under pytest-xdist: the workers run the tests, the controller writes the one report.

Stdlib + pytest only. A worker's HealReporter keeps its rows (start, test, timeout, collect
errors), encoded, instead of writing them; `WorkerRows` puts them on the worker's next report as the
attribute ROWS, which xdist serializes with the report (pytest keeps a report's extra attributes
when it turns it into data and back). On the controller, `Relay` writes the rows of each report
it receives to the report file, through the controller's own (sealed) reporter. A test whose
worker sent no row (the worker crashed, or died in a timed-out test) is still written, from
xdist's own reports: pytest's failures are never lost.

With HEAL_LS_SERIAL=1 (heal-ls's focused runs: a few test ids, candidates, the warm runner),
`run_in_process` turns distribution off, so the tests run in pytest's own process, as with -n 0.
"""

import os

import heal_protocol as wire
import heal_report_parts as parts
import pytest

ROWS = "heal_ls_rows"  # the report attribute carrying a worker's rows
PHASES = ("setup", "call", "teardown")
FROM_WORKERS = (wire.START, wire.TEST, wire.TIMEOUT, wire.COLLECT_ERROR, wire.COLLECTED)


def worker_id(config):
    """The xdist worker's id (gw0, gw1...), or None in a controller or a plain pytest."""
    workerinput = getattr(config, "workerinput", None)
    return None if workerinput is None else str(workerinput.get("workerid", "gw"))


def distributing(config):
    """Will xdist hand the tests to workers? (its own test, after its cmdline_main ran)"""
    if not config.pluginmanager.hasplugin("xdist") or worker_id(config) is not None:
        return False
    return config.getoption("dist", "no") != "no" and bool(config.getoption("tx", None))


def run_in_process(config):
    """Turn distribution off before xdist's trylast pytest_configure looks at it."""
    if distributing(config):
        config.option.dist = "no"
        config.option.tx = []


class WorkerRows:
    """On a worker: the rows its reporter kept go to the controller with the next report."""

    def __init__(self, pending):
        self.pending = pending  # the worker reporter's list, filled by its _emit

    def _attach(self, report):
        if self.pending:
            rows, self.pending[:] = list(self.pending), []
            setattr(report, ROWS, rows)

    # tryfirst: the outermost wrapper, so the reporter's own wrapper has added its rows
    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        self._attach(outcome.get_result())

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_make_collect_report(self, collector):
        outcome = yield
        self._attach(outcome.get_result())


class Relay:
    """On the controller: every worker's rows, written as their reports arrive."""

    def __init__(self, emit, paths):
        self.emit = emit
        self.paths = paths
        self.started = set()
        self.done = set()
        self.collected = False
        self.failed = {}  # nodeid -> pytest's text of the failure, while no test row came

    def _relay(self, report):
        for text in getattr(report, ROWS, None) or ():
            try:
                row = wire.decode_line(text)
            except wire.ReportLineError:
                continue  # not a line its reporter wrote: heal-ls reads the report it can seal
            kind = row.TAG[1]
            if kind not in FROM_WORKERS or (kind == wire.COLLECTED and self.collected):
                continue
            self.collected |= kind == wire.COLLECTED
            if kind == wire.START:
                self.started.add(row.nodeid)
            elif kind == wire.TEST:
                self.done.add(row.nodeid)
            self.emit(row)

    def pytest_collectreport(self, report):
        self._relay(report)

    def pytest_runtest_logreport(self, report):
        self._relay(report)
        nodeid = report.nodeid
        if nodeid in self.done:
            return
        if report.failed:
            self.failed.setdefault(nodeid, report.longreprtext)
        if report.when not in PHASES:  # xdist's report for a test whose worker crashed
            self._unreported(nodeid, "Crash", report.longreprtext)

    def pytest_runtest_logfinish(self, nodeid, location):
        if nodeid not in self.done:  # the worker finished it without sending its row
            text = self.failed.get(nodeid)
            self._unreported(nodeid, "Failed" if text is not None else None, text or "")

    def _unreported(self, nodeid, exc_type, text):
        """A test row made from xdist's reports alone: outcome and pytest's text, no frames."""
        path = os.path.join(self.paths.rootdir, nodeid.split("::")[0])
        rec = wire.TestLine(nodeid, "passed", 0.0, path, None, [], None, "")
        if exc_type is not None:
            exc_type, message = pytest_words(exc_type, text)
            failure = parts.make_failure(nodeid, exc_type, message, [], path, None)
            failure.stdout = parts.bounded_text(text)
            rec.outcome, rec.failure = "failed", failure
        if nodeid not in self.started:
            self.emit(wire.Start(nodeid))
            self.started.add(nodeid)
        self.done.add(nodeid)
        self.emit(rec)


def pytest_words(exc_type, text):
    """(exc_type, message) from pytest's text of a failure: its first `E   ...` line says what
    failed, its last line (`tests/test_x.py:15: AssertionError`) the exception's name."""
    lines = [line for line in text.splitlines() if line.strip()] or [exc_type]
    said = [line[1:].strip() for line in lines if line.startswith("E ")]
    message = said[0] if said else lines[-1]
    name = lines[-1].rpartition(": ")[2]
    if said and name.isidentifier():
        exc_type = name
        if message.startswith(f"{name}: "):
            message = message[len(name) + 2 :]
    return exc_type, parts.bounded_text(message, 4000)
