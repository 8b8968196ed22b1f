"""Every name heal-ls puts on the wire, defined once (client-vscode/src/constants.ts mirrors it),
and the payloads of its custom messages.

- commands (workspace/executeCommand), their arguments typed in lsp/arguments.py:
  heal.healFunction {failure} or {uri, qualname}, heal.healFailingTest {test?},
  heal.runTests {test} or {uri} or nothing, heal.rerunFailed, heal.runScript {script} or {uri},
  heal.debugTest {test?}, heal.loadReport {report, folder?}
- notification `heal/status` (StatusPayload)
- request `heal/failures` -> {failures: [{id, test, message, exc_type, suspect, healable, reason}]}
"""

from __future__ import annotations

from typing import Any

import attrs

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


@attrs.define
class StatusPayload:
    """`heal/status`: what the status bar shows (camelCase on the wire, as LSP does)."""

    running: bool
    failing: int
    healing: str | None
    lastHeal: dict[str, Any] | None  # noqa: N815 - the wire name

    def to_wire(self) -> dict[str, Any]:
        return attrs.asdict(self)


@attrs.define
class FailuresPayload:
    """`heal/failures`: every known failure, for the client's pickers."""

    failures: list[dict[str, Any]]

    def to_wire(self) -> dict[str, Any]:
        return attrs.asdict(self)


@attrs.define
class HealOutcome:
    """The answer of heal.healFunction / heal.healFailingTest."""

    status: (
        str  # verified | weak | unverified | failed | skipped | busy | cancelled | refused | flaky
    )
    message: str
    applied: bool = False
    qualname: str | None = None
    touched: list[str] | None = None  # the functions a verified fix changed
    told: bool = False  # the user was already told (an unverified offer): not on the wire

    def to_wire(self) -> dict[str, Any]:
        wire = attrs.asdict(self, filter=lambda a, v: a.name != "told")
        if self.touched is None:
            del wire["touched"]
        return wire
