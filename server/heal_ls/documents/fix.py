"""`heal-ls fix --json`: a FixRow per heal target (commands/fix.py makes them, and
commands/fix_report.py prints them)."""

from __future__ import annotations

from dataclasses import dataclass, field

from heal_ls import payload
from heal_ls.heal.after_apply import AfterApply
from heal_ls.models import HealStatus, OperatorCount


@dataclass
class FixRow:
    """One heal target's result: a line of the report, an object of `--json`'s "results"."""

    test: str  # its first failing test (or script)
    tests: list[str]
    suspect: str | None  # "path::qualname", the path relative to the root
    status: HealStatus
    proof: str
    guards: int | None  # passing tests that run the function (found by the heal, else seen)
    guard_tests: list[str]
    guards_cut: list[str]  # over the verification budget: run after --apply
    candidate_timeout: float  # s per test; short when a test hangs
    attempts: int
    operators: dict[str, OperatorCount]  # per local-repairer transformation
    diff: str
    touched: list[str]
    notes: list[str]
    applied: bool
    reason: str | None
    warning: str | None
    fixed_by: str | None  # the target whose fix made these tests pass
    tokens: int
    tokens_in: int
    tokens_out: int
    cost: float | None  # rounded to 6 places
    model: str | None
    callers: int | None
    seconds: float
    # the cut guards run on the applied fix; absent from the rows of targets fixed along
    after_apply: AfterApply | None | payload.Absent = field(default=payload.ABSENT)


@dataclass
class FixDocument:
    """What `heal-ls fix --json` prints."""

    results: list[FixRow]
