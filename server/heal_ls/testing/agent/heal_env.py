"""How heal-ls starts a process in the user's interpreter: its modules, options and environment.

The names both sides spell, written once: heal-ls (`heal_ls.testing.agent.heal_env`) when it
builds a run's command line and environment, the agent (this folder, top-level modules in the
user's interpreter) when it reads them. Apart from heal_protocol.py (the report's lines and the
warm server's messages, as dataclasses), so `heal-ls check` spawns pytest's launcher
(testing/prestart.py) without creating the wire's ~24 classes first: with typing and dataclasses
they were a third of heal-ls's CPU before that spawn. Standard library only, and nothing else.

Environment of a pytest run (read by heal_pytest_plugin when pytest starts):
  REPORT        path of the JSON-lines report to write (nothing is recorded without it)
  ROOT          workspace root (default: the current directory)
  TRACE         "1" records which workspace functions ran in each test
  BLOCKS        "1" (with TRACE) records which blocks of them ran too (agent/heal_hits.py)
  TEST_TIMEOUT  seconds per test (0 or unset: no limit)
  OVERLAY       JSON file {abs_path: source_text} served instead of those files
  SERIAL        "1" runs the tests in pytest's own process when the config asks for pytest-xdist
                workers (-n); otherwise workers run them and the controller writes their lines
  COV_REPORTS   "0" (heal-ls's own runs, not the user's): pytest-cov writes no report and
                enforces no fail-under (heal_cov.py)
  SELECT        JSON file of the test ids the run keeps (its arguments are their files; the
                plugin deselects the rest: heal_select.py)
  SEAL          file holding the secret that signs the report: read and deleted at start-up,
                before any test code runs; the session line's "seal" is an HMAC of every line
                written before it, so lines that code under test adds to the report are detected
Environment of a script run (read by heal_overlay): OVERLAY, SCRIPT_TIMEOUT.
"""

PLUGIN_NAME = "heal_pytest_plugin"  # loaded with `-p heal_pytest_plugin`
MAIN_MODULE = "heal_pytest_main"  # `python -m heal_pytest_main ARGS`: pytest, then a quick exit
# `python -m heal_pytest_main --heal-wait`: import pytest, then read the run (argv, env, cwd) from
# stdin as one JSON object; end-of-file without one: exit (testing/prestart.py)
WAIT_OPTION = "--heal-wait"
SERVE_PLUGIN = "heal_serve"  # the plugin-free confirmation run's only plugin: serves the overlay
OVERLAY_BOOT = "heal_overlay.py"  # `python heal_overlay.py SCRIPT [ARGS...]`
WARM_SERVER = "warm_server.py"  # `python warm_server.py ROOT OPTIONS_JSON`

REPORT = "HEAL_LS_REPORT"
ROOT = "HEAL_LS_ROOT"
TRACE = "HEAL_LS_TRACE"
TEST_TIMEOUT = "HEAL_LS_TEST_TIMEOUT"
OVERLAY = "HEAL_LS_OVERLAY"
# Set by the plugin once it serves OVERLAY, inherited by the Python processes the run starts
# (agent/sitecustomize.py serves it there too)
CHILD_OVERLAY = "HEAL_LS_CHILD_OVERLAY"
SCRIPT_TIMEOUT = "HEAL_LS_SCRIPT_TIMEOUT"
COV_REPORTS = "HEAL_LS_COV_REPORTS"  # "0": pytest-cov makes no report, enforces no fail-under
SERIAL = "HEAL_LS_SERIAL"  # "1": run the tests in pytest's own process even if -n asks for workers
BLOCKS = "HEAL_LS_BLOCKS"
HITS_CACHE = "HEAL_LS_HITS_CACHE"  # folder keeping instrumented module code across traced runs
# Set by the plugin while it records, inherited by the Python processes a test starts: the folder
# their hits go to (agent/sitecustomize.py, heal_hits.save_child_hits)
CHILD_HITS = "HEAL_LS_CHILD_HITS"
SELECT = "HEAL_LS_SELECT"  # JSON list of the test ids a run of their files keeps
SEAL = "HEAL_LS_SEAL"  # the report's secret (testing/report.py); the plugin deletes the file
# `--heal-exclude NODEID` (repeatable): deselect exactly that test; pytest's own --deselect
# matches prefixes, so it would also drop test_x_empty and every test_x[...] with test_x.
EXCLUDE_OPTION = "--heal-exclude"
