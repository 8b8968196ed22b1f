"""The wire format between heal-ls and its agent, written once and imported by both sides.

The agent (this folder) runs in the user's interpreter as top-level modules (stdlib + pytest
only); heal-ls imports this one module as `heal_ls.testing.agent.heal_protocol`. Nothing here may
import anything but the standard library.

The environment and command line of a run: heal_env.py.

Report lines, in order, each a dataclass below tagged {"kind": ...} (`encode(line)` in the
plugin, `decode_line(line)` in heal-ls: a line lacking a field, or with a field of the wrong
type or an unknown kind, is refused with a ReportLineError): Collected once collection is done;
Start before each test; Timeout when a test hangs; TestLine after it; CollectError; Abort for a
test that would not stop after its timeout; finally Session, whose "tests" counts the test
lines written: a stream whose last line is not a session line with matching counts is
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

The bench's differential check (bench/differential.py) runs a child in the interpreter the
bench tests with, this folder on its path: a Differential on its stdin (`encode`, `build`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Union

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


# The bench's differential check, from heal-ls to its child (bench/differential.py's CHILD, run
# in the interpreter the bench tests with): one object on the child's stdin, read with `build`.


@dataclass
class Differential:
    """Compare `name` in two module texts on random inputs: alike on `min` of them, "behaves"."""

    root: str
    path: str  # the module's file: its folder and root go first on the child's sys.path
    name: str  # the function's qualified name (a top-level function)
    healed: str  # the healed module's text
    reference: str  # the reference module's text
    min: int  # agreements needed for "behaves"


# The pytest plugin's report lines (see the module docstring). A failure is a FailureRecord
# (heal_report_parts.make_failure), read by heal-ls into heal_ls.models.Failure
# (testing/report.failure_of).


@dataclass
class FrameRecord:
    """One traceback frame, innermost last in a list (heal_ls.models.Frame)."""

    path: str
    line: int | None  # None: the instruction had no line number (rare, on 3.11+)
    function: str
    locals: dict[str, str] = field(default_factory=dict)  # reprs, the failing frames' only


@dataclass
class ChainedRecord:
    """An exception the reported one was raised while handling (heal_ls.models.Chained)."""

    exc_type: str
    message: str
    frames: list[FrameRecord]  # from where it was caught, innermost last; no locals
    cause: bool = False  # `raise ... from it` (its __cause__); False: its __context__
    NESTED: ClassVar[dict[str, type]] = {"frames": FrameRecord}


@dataclass
class FailureRecord:
    """A failing test or a collection error (heal_ls.models.Failure: its fields' meanings)."""

    id: str  # the test's nodeid, or "collect:<path>"
    exc_type: str
    message: str
    frames: list[FrameRecord]
    test: str | None = None  # the nodeid; None for a collection error
    test_path: str | None = None
    test_line: int | None = None
    stdout: str = ""
    duration: float = 0.0
    timed_out: bool = False
    covered: list[str] = field(default_factory=list)
    mock_callers: list[str] = field(default_factory=list)
    import_covered: list[str] = field(default_factory=list)
    when: str | None = None
    caught: list[FrameRecord] = field(default_factory=list)
    blocks: dict[str, list[int]] | None = None  # as TestLine.blocks; left out when not recorded
    chain: list[ChainedRecord] = field(default_factory=list)
    NESTED: ClassVar[dict[str, type]] = {
        "frames": FrameRecord,
        "caught": FrameRecord,
        "chain": ChainedRecord,
    }
    OMIT_NONE: ClassVar[tuple[str, ...]] = ("blocks",)


@dataclass
class Collected:
    count: int  # how many tests will run
    TAG: ClassVar[tuple[str, str]] = ("kind", COLLECTED)


@dataclass
class Start:
    nodeid: str
    TAG: ClassVar[tuple[str, str]] = ("kind", START)


@dataclass
class Timeout:
    nodeid: str
    failure: FailureRecord  # where the test hung
    TAG: ClassVar[tuple[str, str]] = ("kind", TIMEOUT)
    NESTED: ClassVar[dict[str, type]] = {"failure": FailureRecord}


@dataclass
class TestLine:
    """One finished test; the plugin fills it in phase by phase, then writes it."""

    __test__ = False  # not a pytest test class (a ClassVar: unannotated)
    nodeid: str
    outcome: str  # passed, failed, error, skipped
    duration: float
    path: str
    line: int | None
    covered: list[str]  # "abs_path:first_line" keys of the workspace functions it ran
    failure: FailureRecord | None
    stdout: str
    call: str | None = None  # the call phase's outcome; None (left out) when it never ran
    interrupted: bool | None = None  # True when the session was interrupted during it
    # {abs_path: first lines of the blocks it ran} of those functions (BLOCKS runs, {} for none;
    # left out when not recorded)
    blocks: dict[str, list[int]] | None = None
    # True for a test marked xfail: "skipped" is then pytest's xfailed, "passed" its xpassed
    xfail: bool | None = None
    TAG: ClassVar[tuple[str, str]] = ("kind", TEST)
    OMIT_NONE: ClassVar[tuple[str, ...]] = ("call", "interrupted", "blocks", "xfail")
    NESTED: ClassVar[dict[str, type]] = {"failure": FailureRecord}


@dataclass
class CollectError:
    failure: FailureRecord
    TAG: ClassVar[tuple[str, str]] = ("kind", COLLECT_ERROR)
    NESTED: ClassVar[dict[str, type]] = {"failure": FailureRecord}


@dataclass
class Abort:
    nodeid: str  # the test that would not stop: the process ends itself
    TAG: ClassVar[tuple[str, str]] = ("kind", ABORT)


@dataclass
class Session:
    exitstatus: int
    tests: int  # test lines written before it
    seal: str | None = None  # HMAC of every line before it (sealed runs only)
    TAG: ClassVar[tuple[str, str]] = ("kind", SESSION)
    OMIT_NONE: ClassVar[tuple[str, ...]] = ("seal",)


ReportLine = Union[  # noqa: UP007 (evaluated: Python 3.8 reads it)
    Collected, Start, Timeout, TestLine, CollectError, Abort, Session
]
MESSAGES = {
    cls.TAG: cls for cls in (Run, Kill, Exit, Ready, Started, Done, Error, Learned, Tainted)
}
LINES: dict[str, type[Any]] = {
    cls.TAG[1]: cls for cls in (Collected, Start, Timeout, TestLine, CollectError, Abort, Session)
}
_FIELDS: dict[type, tuple[str, ...]] = {}


class ReportLineError(ValueError):
    """A report line that is no report line: not JSON, no known kind, a field missing or of the
    wrong type. It says which, in words a log can show."""


def _names(cls: type[Any]) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls))
    return names


def plain(message: Any) -> dict[str, Any]:
    """A message's fields as JSON data, by name, nested messages (and lists of them) too (a
    shallow copy: a frame's locals are not copied); OMIT_NONE fields left out when None."""
    data = vars(message)
    out = {name: data[name] for name in _names(type(message))}
    for name in getattr(message, "NESTED", ()):
        value = out[name]
        if isinstance(value, list):
            out[name] = [plain(item) for item in value]
        elif value is not None:
            out[name] = plain(value)
    for name in getattr(message, "OMIT_NONE", ()):
        if out[name] is None:
            del out[name]
    return out


def encode(message: Any) -> str:
    """A message, a report line or ServerOptions as one line of JSON (with its tag first)."""
    tag = getattr(message, "TAG", None)
    data = plain(message)
    return json.dumps({tag[0]: tag[1], **data} if tag else data)


# What JSON gives for each annotation's base name (the annotations are strings: never evaluated).
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "int": (int,),
    "float": (int, float),
    "bool": (bool,),
    "list": (list,),
    "tuple": (list, tuple),
    "dict": (dict,),
    "None": (type(None),),
    "Any": (object,),
}


_EXPECTED: dict[str, tuple[type, ...]] = {}


def _expected(annotation: str) -> tuple[type, ...]:
    """The JSON types an annotation allows: a name not in _JSON_TYPES is a dataclass above, an
    object (built and checked field by field by `build`)."""
    if annotation in _EXPECTED:
        return _EXPECTED[annotation]
    parts = [part.split("[", 1)[0].strip() for part in annotation.split(" | ")]
    allowed = tuple(t for part in parts for t in _JSON_TYPES.get(part, (dict,)))
    _EXPECTED[annotation] = allowed
    return allowed


def build(cls: type[Any], data: Any) -> Any:
    """`cls` (a dataclass above) from its JSON object, its NESTED fields (one object or a list
    of them) built too; unknown keys are ignored, a missing field or one whose value has the
    wrong JSON type raises TypeError (ValueError from json)."""
    if not isinstance(data, dict):
        raise TypeError(f"{cls.__name__}: expected an object, got {type(data).__name__}")
    nested = getattr(cls, "NESTED", {})
    values = {}
    for f in fields(cls):
        if f.name not in data:
            continue
        value = values[f.name] = data[f.name]
        allowed = _expected(str(f.type))
        if not isinstance(value, allowed):
            got = type(value).__name__
            raise TypeError(f"{cls.__name__}: field {f.name!r} is {got}, not {f.type}")
    for f in fields(cls):
        inner, value = nested.get(f.name), values.get(f.name)
        if inner is None or value is None:
            continue
        if str(f.type).startswith("list["):  # already checked to be a list
            values[f.name] = [build(inner, item) for item in value]
        else:
            values[f.name] = build(inner, value)
    return cls(**values)  # TypeError naming the missing fields


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


def decode_line(line: Any) -> Any:
    """The report line (a ReportLine) that one line of the report holds (str or bytes), or
    ReportLineError saying why it is none."""
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise ReportLineError(f"not JSON ({exc})") from None
    kind = data.get("kind") if isinstance(data, dict) else None
    cls = LINES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ReportLineError(f"not a report line (kind {kind!r})")
    try:
        return build(cls, data)
    except TypeError as exc:
        raise ReportLineError(f"a {kind} line is malformed: {exc}") from None
