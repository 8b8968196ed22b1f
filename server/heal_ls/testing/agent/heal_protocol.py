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

Warm server (`python warm_server.py ROOT OPTIONS`, OPTIONS a ServerOptions; then one message per
line on its stdin/stdout, each a dataclass below: `encode(message)`, `decode(line)`):
  <- Ready
  -> Run (its `sandbox`: the child's Limits, with the mounts made Fresh for it)
  <- Started, then Done or Error (the client then runs it cold)
  -> Kill   -> Exit   <- Learned (what it preloaded since) | Tainted (a preload started a thread)
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar

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


# Warm server messages: a request is tagged {"op": ...}, an answer {"event": ...}; their fields
# follow. Python 3.8 reads this module too: the annotations stay strings (never evaluated).


@dataclass
class Rewritten:
    """Modules pytest assert-rewrote that the server may preload rewritten."""

    names: list[str] = field(default_factory=list)
    marked: list[str] = field(default_factory=list)  # modules marked for rewriting
    prefix: str | None = None  # the rewritten bytecode's cache tag


@dataclass
class ServerOptions:
    """The server's start-up options (its second argument, as JSON)."""

    preload: list[str] = field(default_factory=list)  # module names to import first
    rewritten: Rewritten = field(default_factory=Rewritten)
    exclude: list[str] = field(default_factory=list)  # never preloaded (they misbehaved)
    rewritten_ok: bool = True  # False once a run's config did not fit rewritten preloads
    NESTED: ClassVar[dict[str, type]] = {"rewritten": Rewritten}


@dataclass
class Fresh:
    """What a sandboxed run mounts afresh in its own mount namespace (warm_mounts.mount_fresh)."""

    tmpfs: list[tuple[str, int]]  # (path, size cap in bytes), outer first
    binds: list[str]  # bound back from the server's view
    covers: list[str] = field(default_factory=list)  # unix sockets made since the start


@dataclass
class Limits:
    """A run's resource limits (warm_sandbox.apply); pid_namespace: its own PID namespace."""

    memory: int | None = None
    cpu_seconds: int | None = None
    file_size: int | None = None
    processes: int | None = None
    pid_namespace: bool = False
    fresh: Fresh | None = None
    NESTED: ClassVar[dict[str, type]] = {"fresh": Fresh}


@dataclass
class Run:
    """Run pytest with `argv` in a forked child; its output goes to the file `output`."""

    id: int
    argv: list[str]
    env: dict[str, str]
    cwd: str
    output: str
    timeout: float
    pycache: str | None = None  # where bytecode goes when the user's env turns it off
    sandbox: Limits | None = None
    TAG: ClassVar[tuple[str, str]] = ("op", RUN)
    NESTED: ClassVar[dict[str, type]] = {"sandbox": Limits}


@dataclass
class Kill:
    id: int
    TAG: ClassVar[tuple[str, str]] = ("op", KILL)


@dataclass
class Exit:
    TAG: ClassVar[tuple[str, str]] = ("op", EXIT)


@dataclass
class Ready:
    pid: int
    python: str  # sys.version
    site_dirs: list[str]
    TAG: ClassVar[tuple[str, str]] = ("event", READY)


@dataclass
class Started:
    id: int
    pid: int
    TAG: ClassVar[tuple[str, str]] = ("event", STARTED)


@dataclass
class Done:
    id: int
    returncode: int
    timed_out: bool
    cpu: float = 0.0  # CPU seconds of the run (user + system)
    TAG: ClassVar[tuple[str, str]] = ("event", DONE)


@dataclass
class Error:
    """The run cannot be served warm; kind DOUBT or DOUBT_PLAIN, or "error"."""

    id: int
    message: str
    kind: str = "error"
    TAG: ClassVar[tuple[str, str]] = ("event", ERROR)


@dataclass
class Learned:
    modules: list[str]  # plain modules preloaded since the last Learned
    rewritten: Rewritten
    TAG: ClassVar[tuple[str, str]] = ("event", LEARNED)
    NESTED: ClassVar[dict[str, type]] = {"rewritten": Rewritten}


@dataclass
class Tainted:
    module: str  # importing it started a thread: the server exits, restart without it
    TAG: ClassVar[tuple[str, str]] = ("event", TAINTED)


# A child's exchange files, written before it exits and read by the server (never by heal-ls).


@dataclass
class Imported:
    """OUTPUT.modules: what a finished run imported from outside the workspace, to preload."""

    plain: list[str] = field(default_factory=list)  # importable plainly
    rewritten: list[str] = field(default_factory=list)  # pytest assert-rewrote them
    marked: list[str] = field(default_factory=list)  # modules pytest marked for rewriting
    prefix: str | None = None  # sys.pycache_prefix of the run


@dataclass
class Doubt:
    """OUTPUT.doubt: why a run left at once; the server answers its Run with Error(kind)."""

    kind: str  # DOUBT or DOUBT_PLAIN
    message: str


# The unshare level's view, from heal-ls to sandbox_mount.py (its first argument, JSON).


@dataclass
class MountView:
    """What sandbox_mount.py mounts before it execs the command."""

    hidden: list[tuple[str, int]]  # a fresh tmpfs (path, size cap in bytes) each, outer first
    binds: list[tuple[str, str, bool]]  # (host path, path inside, writable)
    cwd: str  # where the command starts; must be read-only unless under a writable bind


MESSAGES = {
    cls.TAG: cls for cls in (Run, Kill, Exit, Ready, Started, Done, Error, Learned, Tainted)
}


def encode(message: Any) -> str:
    """A message or ServerOptions as one line of JSON (a message with its tag first)."""
    tag = getattr(message, "TAG", None)
    data = asdict(message)
    return json.dumps({tag[0]: tag[1], **data} if tag else data)


def build(cls: type[Any], data: Any) -> Any:
    """`cls` (a dataclass above) from its JSON object; unknown keys are ignored, a missing or
    malformed field raises TypeError (ValueError from json)."""
    if not isinstance(data, dict):
        raise TypeError(f"{cls.__name__}: expected an object, got {type(data).__name__}")
    nested = getattr(cls, "NESTED", {})
    names = {f.name for f in fields(cls)}
    values = {k: v for k, v in data.items() if k in names}
    for name, inner in nested.items():
        if values.get(name) is not None:
            values[name] = build(inner, values[name])
    return cls(**values)


def decode(line: Any) -> Any:
    """The message one line holds (str or bytes); TypeError or ValueError if it is none."""
    data = json.loads(line)
    if not isinstance(data, dict):
        raise TypeError("a message is a JSON object")
    for key in ("op", "event"):
        cls = MESSAGES.get((key, str(data.get(key))))
        if cls is not None:
            return build(cls, data)
    raise TypeError(f"not a message: {sorted(data)}")
