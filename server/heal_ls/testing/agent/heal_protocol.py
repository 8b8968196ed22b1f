"""The wire format between heal-ls and its agent, written once and imported by both sides.

The agent (this folder) runs in the user's interpreter as top-level modules (stdlib + pytest
only); heal-ls imports this one module as `heal_ls.testing.agent.heal_protocol`. Nothing here may
import anything but the standard library.

Environment of a pytest run (read by heal_pytest_plugin when pytest starts):
  REPORT        path of the JSON-lines report to write (nothing is recorded without it)
  ROOT          workspace root (default: the current directory)
  TRACE         "1" records which workspace functions ran in each test
  TEST_TIMEOUT  seconds per test (0 or unset: no limit)
  OVERLAY       JSON file {abs_path: source_text} served instead of those files
  SERIAL        "1" runs the tests in pytest's own process when the config asks for pytest-xdist
                workers (-n); otherwise workers run them and the controller writes their lines
  SELECT        JSON file of the test ids the run keeps (its arguments are their files; the
                plugin deselects the rest: heal_select.py)
  SEAL          file holding the secret that signs the report: read and deleted at start-up,
                before any test code runs; the session line's "seal" is an HMAC of every line
                written before it, so lines that code under test adds to the report are detected
Environment of a script run (read by heal_overlay): OVERLAY, SCRIPT_TIMEOUT.

Report lines, in order: {"kind": "collected", "count"} once collection is done; {"kind":
"start", "nodeid"} before each test; {"kind": "timeout", "nodeid", "failure"} when a test hangs;
{"kind": "test", ...} after it; {"kind": "collect_error", "failure"}; {"kind": "abort", "nodeid"}
for the test during which the session was interrupted; finally {"kind": "session", "exitstatus", "tests", "seal"} where "tests" counts
the test lines written: a stream whose last line is not a session line with matching counts is
incomplete (the process died, or something else wrote to the report). A test during which the
session was interrupted (KeyboardInterrupt, SIGINT, pytest.exit) is "failed" with
"interrupted": true. A test line's "call" is the outcome of the test's call phase ("passed",
"failed", "skipped"), absent when the call phase never ran (a skip or error in setup).

Warm server (one JSON object per line on its stdin/stdout):
  <- {"event": "ready", "pid", "python", "site_dirs"}
  -> {"op": "run", "id", "argv", "env", "cwd", "output", "timeout", "pycache", "sandbox"}
  <- {"event": "started", "id", "pid"}, then {"event": "done", "id", "returncode", "timed_out",
     "cpu"} or {"event": "error", "id", "message", "kind"}  (the client then runs it cold)
  -> {"op": "kill", "id"}   -> {"op": "exit"}   <- {"event": "learned" | "tainted", ...}
"""

from __future__ import annotations

PLUGIN_NAME = "heal_pytest_plugin"  # loaded with `-p heal_pytest_plugin`
SERVE_PLUGIN = "heal_serve"  # the plugin-free confirmation run's only plugin: serves the overlay
OVERLAY_BOOT = "heal_overlay.py"  # `python heal_overlay.py SCRIPT [ARGS...]`
WARM_SERVER = "warm_server.py"  # `python warm_server.py ROOT OPTIONS_JSON`

REPORT = "HEAL_LS_REPORT"
ROOT = "HEAL_LS_ROOT"
TRACE = "HEAL_LS_TRACE"
TEST_TIMEOUT = "HEAL_LS_TEST_TIMEOUT"
OVERLAY = "HEAL_LS_OVERLAY"
SCRIPT_TIMEOUT = "HEAL_LS_SCRIPT_TIMEOUT"
SERIAL = "HEAL_LS_SERIAL"  # "1": run the tests in pytest's own process even if -n asks for workers
HITS_CACHE = "HEAL_LS_HITS_CACHE"  # folder keeping instrumented module code across traced runs
SELECT = "HEAL_LS_SELECT"  # JSON list of the test ids a run of their files keeps
SEAL = "HEAL_LS_SEAL"  # the report's secret (testing/report.py); the plugin deletes the file
# `--heal-exclude NODEID` (repeatable): deselect exactly that test; pytest's own --deselect
# matches prefixes, so it would also drop test_x_empty and every test_x[...] with test_x.
EXCLUDE_OPTION = "--heal-exclude"

# Report record kinds: each line of the report is {"kind": one of these, ...}.
START, TEST, TIMEOUT, ABORT, COLLECT_ERROR, COLLECTED, SESSION = (
    "start",
    "test",
    "timeout",
    "abort",
    "collect_error",
    "collected",
    "session",
)

# Warm server: requests {"op": one of OPS, ...}, answers {"event": one of EVENTS, ...}.
RUN, KILL, EXIT = "run", "kill", "exit"
READY, STARTED, DONE, ERROR, LEARNED, TAINTED = (
    "ready",
    "started",
    "done",
    "error",
    "learned",
    "tainted",
)
# The "kind" of an error event when the run's rewritten plugins differ from the preloaded ones
# (DOUBT: stop trusting the rewrite) or a plain module was rewritten (DOUBT_PLAIN: learn it).
DOUBT, DOUBT_PLAIN = "doubt", "doubt-plain"
