"""The bench's rows and documents, each a dataclass written once: `heal-ls bench --json`'s
BenchDocument (a BenchRow per bug of a suite, bench/heal_case.py, and their BenchSummary,
bench/table.py), `--suite localise --json`'s LocaliseDocument (bench/localise.py), and the
real-bug corpus's RealRow (bench/real.py). They become JSON through `payload.to_object`, their
fields in the order the documents have always had (tests/unit/bench/test_rows.py pins them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from heal_ls.models import OperatorCount


@dataclass
class BenchRow:
    """One bug of a bench suite, healed and judged: a line of the table, a row of --json."""

    name: str
    suite: str
    located: bool = False
    status: str = "-"
    fixed: bool = False
    correct: bool | None = False  # the hidden tests pass on the healed code (None: it has none)
    hidden_failed: list[str] = field(default_factory=list)
    equal: str = "-"
    weak: bool = False  # the tests pass but no passing test guarded the function
    attempts: int = 0
    guard_stops: int = 0  # candidates that passed the failing tests but broke a guard
    model_calls: int = 0
    tokens: int = 0
    heal_seconds: float = 0.0
    seconds: float = 0.0
    note: str = ""


@dataclass
class BenchSummary:
    """The totals of a bench run (the table's last line, --json's "summary")."""

    bugs: int
    located: int
    fixed: int
    hidden: int  # bugs with hidden tests
    correct: int
    verified_wrong: int  # healed ("verified" or "weak") yet not right: a test or hidden test fails
    weak_wrong: int
    equal: int
    same_ast: int
    weak: int
    attempts: int
    guard_stops: int
    model_calls: int
    tokens: int
    total_seconds: float
    median_seconds: float
    max_seconds: float


@dataclass
class BenchDocument:
    """What `heal-ls bench --json` prints."""

    rows: list[BenchRow]
    summary: BenchSummary


@dataclass
class RealSettings:
    """How `bench --real` runs each bug (commands/bench_real.py, from its flags)."""

    test_timeout: float
    budget_count: int
    budget_seconds: float
    check_only: bool = False


@dataclass
class RealRow:
    """One bug of the real-bug corpus: a line of the table (bench_bug fills it step by step)."""

    bug: str
    project: str
    round: int = 0  # the corpus round the bug was mined in (bug.json)
    reproduces: bool = False
    check_ran: bool = False
    rank: int | None = None
    listed: bool = False
    pytest_seconds: float = 0.0
    file_seconds: float = 0.0
    check_seconds: float = 0.0
    fix: str = "-"
    verified: bool = False
    same_function: bool | None = None
    breaks: list[str] = field(default_factory=list)
    regression_tests: int = 0
    fix_seconds: float = 0.0
    note: str = ""
    correct: str = ""  # "equal", "tests" or "" (bench/repairer.correct)
    fix_kind: str = ""
    operators: dict[str, OperatorCount] = field(default_factory=dict)


@dataclass
class RealSummary:
    """The table's totals line."""

    bugs: int
    reproduced: int
    projects: int
    check_ran: int
    top1: int
    top3: int
    listed: int
    pytest_seconds: float
    check_seconds: float
    ratio: float | None
    file_seconds: float
    file_ratio: float | None
    verified: int
    correct: int
    same_function: int
    breaking: int


@dataclass
class LocaliseRow:
    """One injected bug of `--suite localise`: where its function ranks in each failure."""

    package: str
    bug: str
    kind: str  # the mutation's kind (bench/mutants.py)
    nested: bool  # the function is a closure
    failures: int
    ranks: list[int | None]  # per failure (at most MAX_FAILURES_PER_BUG); None: not a suspect
    seconds: float


@dataclass
class Timing:
    """Plain pytest against `heal-ls check` on one unchanged package, best of its rounds."""

    package: str
    pytest: float  # wall seconds
    check: float
    ratio: float  # check / pytest, wall
    cpu_ratio: float  # the same in CPU seconds of the whole process tree


@dataclass
class LocaliseSummary:
    bugs: int
    failures: int
    top1: float  # share of the failures whose injected function came first
    top3: float
    top5: float
    none: float  # share where it was no suspect at all


@dataclass
class LocaliseDocument:
    """What `heal-ls bench --suite localise --json` prints."""

    rows: list[LocaliseRow]
    timings: list[Timing]
    summary: LocaliseSummary
