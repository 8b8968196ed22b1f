"""Core data shared by every part of heal-ls: plain, JSON-serialisable dataclasses.

Data flows one way: runner -> RunResult/Failure -> locate -> Suspect -> heal loop -> HealResult.
Paths inside these objects are absolute filesystem paths unless a field says otherwise; lines are
1-based and columns 0-based (code points), as Python reports them. Converting to LSP positions
(UTF-16) is the LSP layer's job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

# verified: the failing tests really pass and so does every guard (a passing test that runs the
# function); weak: they pass but no guard exists, so nothing shows the rest still works.
# fixed: another target's verified fix already made these tests pass (a shared cause).
# review: it passes, but adds what the allow-list does not vouch for (heal/novelty.py): "needs
# review", applied only on the user's yes.
HealStatus = Literal[
    "verified",
    "weak",
    "review",
    "unverified",
    "failed",
    "cancelled",
    "skipped",
    "fixed",
    "grouped",
]


@dataclass
class Frame:
    """One traceback frame, innermost last in a list."""

    path: str
    line: int
    function: str
    locals: dict[str, str] = field(default_factory=dict)


@dataclass
class Chained:
    """An exception the failure's was raised while handling: its `__cause__` (`raise X from
    err`) or the `__context__` Python prints ("During handling of the above exception...")."""

    exc_type: str
    message: str
    frames: list[Frame] = field(default_factory=list)  # from where it was caught, innermost last
    cause: bool = False  # `raise ... from it`; False: raised while handling it


MAX_FRAMES = 40  # frames kept of a traceback: the outermost OUTER_FRAMES and the innermost rest
OUTER_FRAMES = 10


@dataclass
class Failure:
    """A failing test, a collection error or a crashing script."""

    id: str  # the test nodeid, "collect:<path>" or "script:<path>"
    exc_type: str
    message: str
    frames: list[Frame] = field(default_factory=list)
    test: str | None = None  # pytest nodeid when the failure is a test
    script: str | None = None  # absolute path when the failure is a script run
    stdout: str = ""
    duration: float = 0.0
    timed_out: bool = False
    test_path: str | None = None  # absolute path of the test file
    test_line: int | None = None  # 1-based line of the failing line inside the test (or its def)
    # Workspace functions that ran during the test, as "abs_path:first_line" keys.
    covered: list[str] = field(default_factory=list)
    # The blocks of those functions that ran, {abs_path: first lines}; None: not recorded (a
    # def's entry block is the def's own key in `covered`, agent/heal_hits.py).
    blocks: dict[str, list[int]] | None = None
    # Workspace functions that called the mock a failed mock assertion checks (same keys).
    mock_callers: list[str] = field(default_factory=list)
    # Workspace functions that ran while the test modules imported (module-level data).
    import_covered: list[str] = field(default_factory=list)
    when: str | None = None  # the test phase that raised: "setup", "call" or "teardown"
    frames_skipped: int = 0  # middle frames dropped from a very deep traceback (MAX_FRAMES)
    # Workspace frames (outside tests) that raised the exception a failed check was about: the
    # one `pytest.raises(match=)` did not match, or one the test kept and checks. Outermost first.
    caught: list[Frame] = field(default_factory=list)
    # The exceptions it was raised while handling, the nearest first (each one's own cause
    # next): where the failure started when the raise only wrapped what it caught.
    chain: list[Chained] = field(default_factory=list)

    def __post_init__(self) -> None:
        # A RecursionError brings ~1,000 frames: every diagnostic, code action and prompt would
        # carry them all. The outer frames say where it started, the inner ones where it broke.
        if len(self.frames) > MAX_FRAMES:
            self.frames_skipped += len(self.frames) - MAX_FRAMES
            self.frames = self.frames[:OUTER_FRAMES] + self.frames[OUTER_FRAMES - MAX_FRAMES :]


@dataclass
class TestOutcome:
    """One test's result, passing or not (passing ones feed spectrum ranking and regressions)."""

    __test__ = False  # not a pytest test class for the test modules that import it (unannotated)
    nodeid: str
    outcome: Literal["passed", "failed", "error", "skipped"]
    duration: float = 0.0
    path: str | None = None
    line: int | None = None
    covered: list[str] = field(default_factory=list)
    call: str | None = None  # the call phase's own outcome; None when it never ran
    blocks: dict[str, list[int]] | None = None  # as Failure.blocks
    xfail: bool = False  # marked xfail: a "skipped" outcome is pytest's xfailed, "passed" xpassed


@dataclass
class RunResult:
    """What one pytest or script run produced."""

    root: str
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    xfailed: int = 0  # of `skipped`: marked xfail, and failed (pytest's "xfailed")
    xpassed: int = 0  # of `passed`: marked xfail, and passed (pytest's "xpassed")
    seconds: float = 0.0
    failures: list[Failure] = field(default_factory=list)
    tests: list[TestOutcome] = field(default_factory=list)
    timed_out: bool = False  # the run as a whole hit its timeout
    error: str | None = None  # the runner itself could not run (no pytest, bad interpreter...)
    interrupted: str | None = None  # why the session stopped early (KeyboardInterrupt...): no pass
    exitstatus: int | None = None  # pytest's own session exit status, from its report stream
    returncode: int | None = None  # the process's exit code
    # The report stream ended with a session line whose counts match the lines before it, and
    # the process exited with that same status: nothing died or wrote to the report mid-way.
    complete: bool = False
    # Functions the failing tests ran whose code changed since the project's last green run
    # ("abs_path:first_line" keys, impact/green.py): ranking evidence, filled by diagnose.
    changed_since_green: list[str] = field(default_factory=list)
    # A focused run (testing/focus.py): the tests it ran, its files' others included, and
    # those of its files it did not run because the impact map vouched for their last run.
    ran: int = 0
    vouched: int = 0

    def count(self, test: TestOutcome) -> None:
        """Add one test's outcome to the counts (an unknown outcome is an error)."""
        name = {"passed": "passed", "failed": "failed", "skipped": "skipped"}.get(
            test.outcome, "errors"
        )
        setattr(self, name, getattr(self, name) + 1)
        if test.xfail:
            self.xfailed += name == "skipped"
            self.xpassed += name == "passed"


@dataclass
class Suspect:
    """A function that may hold the bug: the whole def node, decorators included."""

    path: str
    qualname: str
    start_line: int  # first decorator line (1-based)
    start_col: int
    end_line: int  # last line of the body (1-based, inclusive)
    end_col: int
    reason: str
    score: float = 1.0
    def_line: int = 0  # the line of the `def` keyword itself
    focus_line: int = 0  # the line to point at: the failing line inside the node, else def_line
    # a class that lacks the member a test uses: the member to add ("__hash__", "mask.setter");
    # the node is then the class, and a heal inserts that one member (heal/member.py)
    member: str = ""


@dataclass
class Candidate:
    """A proposed replacement for the suspect function (full def source, decorators optional)."""

    source: str
    proposer: str
    attempt: int = 1
    kind: str = ""  # the local repairer's transformation that made it ("" from a model)


@dataclass
class Attempt:
    candidate: Candidate
    outcome: Literal["verified", "rejected", "failed", "error", "timeout"]
    failure: str = ""  # why it did not pass, in words that can go back to the model
    seconds: float = 0.0  # what its verification run took


@dataclass
class OperatorCount:
    """One local-repairer transformation in a heal: candidates run, their seconds, verified
    (a FixRow's "operators", summed over a corpus by bench/repairer.merged_operators)."""

    tried: int = 0
    seconds: float = 0.0
    won: int = 0


@dataclass
class NodeEdit:
    """module_text[start:end] becomes `text` (code point offsets into the original module text);
    `qualname` names the touched node ("<imports>" for the import block)."""

    qualname: str
    start: int
    end: int
    text: str


@dataclass
class HealResult:
    status: HealStatus
    suspect: Suspect | None = None
    new_source: str | None = None  # the whole module text after the verified splice
    diff: str = ""
    attempts: list[Attempt] = field(default_factory=list)
    tokens: int = 0
    seconds: float = 0.0
    reason: str | None = None
    best_candidate: str | None = None  # the last single-function candidate that did not pass
    best_diff: str = (
        ""  # no verified fix: the last multi-node candidate that did not pass, as a diff
    )
    touched: list[str] = field(default_factory=list)  # qualnames of the nodes the fix changes
    notes: list[str] = field(default_factory=list)  # what the model's answer held that was ignored
    # one per touched node of a planned fix; empty for a single-function fix, whose one node is
    # the suspect
    edits: list[NodeEdit] = field(default_factory=list)
    tokens_in: int = 0  # the budget meter (heal/budget.py): tokens = tokens_in + tokens_out
    tokens_out: int = 0
    cost: float | None = None  # estimated USD; None when the model's price is unknown
    model: str | None = None  # the model asked, if any
    warning: str | None = None  # e.g. "verification not isolated on this system"
    targets: list[str] = field(default_factory=list)  # the failing tests (or script) it was for
    guards: list[str] = field(default_factory=list)  # passing tests that ran the function
    # guards the verification budget left out (heal/guard_budget.py): they run after the apply
    guards_cut: list[str] = field(default_factory=list)
    proof: str = ""  # what proved it: "verified by 1 failing test now passing and 3 guards..."
    candidate_timeout: float = 0.0  # seconds per test while candidates were verified
