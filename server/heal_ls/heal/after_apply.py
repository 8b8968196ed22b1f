"""After an apply: the guards the verification budget cut run on the applied code.

A fix is verified against the nearest guards that fit the budget (heal/guard_budget.py); the
promise is about every passing test that exercises the changed code, so the rest run right after
the fix is written, and a guard that no longer passes is reported at once (`heal-ls fix --apply`
says which and exits 1; the editor re-runs them in the background and reopens a diagnostic).

    found = await run_cut_guards(root, result.guards_cut, config.run_options())
    found.text()   # "after the apply, 28 of 28 cut guards pass"
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from heal_ls.heal.verify import run_sandboxed_tests
from heal_ls.testing.options import RunOptions


@dataclass
class AfterApply:
    ran: list[str] = field(default_factory=list)  # the cut guards, run on the applied code
    broken: list[str] = field(default_factory=list)  # those that did not pass there
    error: str | None = None  # the run itself could not run

    def text(self) -> str:
        if self.error:
            return f"after the apply, the {len(self.ran)} cut guards could not run: {self.error}"
        passing = len(self.ran) - len(self.broken)
        line = f"after the apply, {passing} of {len(self.ran)} cut guards pass"
        if self.broken:
            line += f"; BROKEN by the fix: {', '.join(self.broken)}"
        return line


async def run_cut_guards(root: str, cut: Sequence[str], options: RunOptions) -> AfterApply:
    """Run `cut` on the code as it is now (the fix applied; `options.overlay`: unsaved
    buffers), as any test run of the user's own code: untraced, outside the candidates' sandbox,
    cold."""
    ran = list(cut)
    if not ran:
        return AfterApply()
    run = await run_sandboxed_tests(root, ran, replace(options, warm=None, sandbox=None))
    if run.error:
        return AfterApply(ran, [], run.error)
    passed = {t.nodeid for t in run.tests if t.outcome == "passed" and t.call == "passed"}
    return AfterApply(ran, [nodeid for nodeid in ran if nodeid not in passed])
