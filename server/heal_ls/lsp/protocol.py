"""Every name heal-ls puts on the wire, defined once (client-vscode/src/constants.ts mirrors it),
and the payloads of its custom messages, typed (client-vscode/src/wire.ts is generated from
them by scripts/ts_mirror.py; tests/unit/lsp/test_wire_mirror.py fails when the two differ).

- commands (workspace/executeCommand), their arguments typed in lsp/arguments.py:
  heal.healFunction {failure} or {uri, qualname}, heal.healFailingTest {test?},
  heal.runTests {test} or {uri} or nothing, heal.rerunFailed, heal.runScript {script} or {uri},
  heal.debugTest {test?}, heal.loadReport {report, folder?}; heal.healFunction and
  heal.healFailingTest answer a HealOutcome, the runs a RunSummary, heal.debugTest a DebugTarget
- notification `heal/status` (StatusPayload, its last heal a LastHeal)
- request `heal/failures` -> FailuresPayload (a FailureInfo per failure)
- a heal diagnostic's `data`: DiagnosticData (a FailureInfo and the failure's id)

Payloads become JSON through heal_ls.payload.to_json only.
"""

from __future__ import annotations

import attrs

from heal_ls import payload
from heal_ls.heal.blast import Blast
from heal_ls.lsp.arguments import (
    DebugTestArgs,
    HealFailingTestArgs,
    HealFunctionArgs,
    LoadReportArgs,
    RunScriptArgs,
    RunTestsArgs,
)
from heal_ls.models import HealStatus
from heal_ls.testing.flaky import Flaky

HEAL_FUNCTION = "heal.healFunction"
HEAL_FAILING_TEST = "heal.healFailingTest"
RUN_TESTS = "heal.runTests"
RERUN_FAILED = "heal.rerunFailed"
RUN_SCRIPT = "heal.runScript"
DEBUG_TEST = "heal.debugTest"
LOAD_REPORT = "heal.loadReport"
HEALS = (HEAL_FUNCTION, HEAL_FAILING_TEST)  # cancellable heals
RUNS = (RUN_TESTS, RERUN_FAILED, RUN_SCRIPT, LOAD_REPORT)  # cancellable runs
COMMANDS = (*HEALS, *RUNS, DEBUG_TEST)

STATUS = "heal/status"
FAILURES = "heal/failures"


@attrs.frozen(kw_only=True)
class LastHeal:
    """The last heal's outcome and budget meter (camelCase on the wire, as LSP does)."""

    qualname: str
    status: HealStatus
    tokensIn: int  # noqa: N815 - the wire names
    tokensOut: int  # noqa: N815
    cost: float | None  # estimated USD, rounded to 6 places; None when the price is unknown
    model: str | None  # the model asked, if any
    meter: str  # "1,200 in / 340 out tokens, ~$0.0087" or "no model call"


@attrs.frozen(kw_only=True)
class StatusPayload:
    """`heal/status`: what the status bar shows."""

    running: bool
    failing: int
    healing: str | None
    lastHeal: LastHeal | None  # noqa: N815 - the wire name


@attrs.frozen(kw_only=True)
class SuspectInfo:
    """Where a failure points: the suspect function and the line of its def."""

    path: str
    qualname: str
    line: int


@attrs.frozen(kw_only=True)
class FailureInfo:
    """One known failure, for the client's pickers and views."""

    id: str
    test: str | None
    message: str
    exc_type: str
    suspect: SuspectInfo | None
    healable: bool
    reason: str | None  # why it cannot be healed, when it cannot
    flaky: Flaky | None  # what re-runs on unchanged code showed, once triaged
    blast: Blast | None  # call sites and guard tests of the suspect, once known


@attrs.frozen(kw_only=True)
class DiagnosticData(FailureInfo):
    """A heal diagnostic's `data`: its failure, and the failure's id again as `failure`."""

    failure: str


@attrs.frozen(kw_only=True)
class FailuresPayload:
    """`heal/failures`: every known failure."""

    failures: list[FailureInfo]


@attrs.define
class HealOutcome:
    """The answer of heal.healFunction / heal.healFailingTest."""

    status: (
        str  # verified | weak | unverified | failed | skipped | busy | cancelled | refused | flaky
    )
    message: str
    applied: bool = False
    qualname: str | None = None
    # the functions a verified fix changed (absent otherwise)
    touched: list[str] | None = attrs.field(default=None, metadata={payload.OMIT_NONE: True})
    # the user was already told (an unverified offer): not on the wire
    told: bool = attrs.field(default=False, metadata={payload.LOCAL: True})


OPTIONAL = {payload.OMIT_NONE: True}


@attrs.frozen(kw_only=True)
class RunSummary:
    """The answer of heal.runTests, heal.rerunFailed, heal.runScript and heal.loadReport (no run
    at all: `ran` false and nothing else)."""

    ran: bool
    passed: int | None = attrs.field(default=None, metadata=OPTIONAL)
    failed: int | None = attrs.field(default=None, metadata=OPTIONAL)
    errors: int | None = attrs.field(default=None, metadata=OPTIONAL)
    error: str | None = attrs.field(default=None, metadata=OPTIONAL)  # why the run failed
    seconds: float | None = attrs.field(default=None, metadata=OPTIONAL)


@attrs.frozen(kw_only=True)
class DebugTarget:
    """What heal.debugTest answers: debugpy waits for a client there."""

    host: str
    port: int
    test: str  # the node id it runs
    pid: int  # the debugged test process


# What client-vscode/src/wire.ts mirrors (scripts/ts_mirror.py), with the classes they name.
WIRE_TYPES = (
    StatusPayload,
    FailuresPayload,
    DiagnosticData,
    HealOutcome,
    RunSummary,
    DebugTarget,
    RunTestsArgs,
    LoadReportArgs,
    RunScriptArgs,
    DebugTestArgs,
    HealFailingTestArgs,
    HealFunctionArgs,
)
WIRE_ALIASES = {"HealStatus": HealStatus}
