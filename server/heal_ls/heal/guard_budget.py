"""Verification sized to the change: which guards a candidate runs, nearest first, in a budget.

A function a thousand tests run would cost every candidate a thousand tests. The guards run
nearest first: those in the failing tests' own files (what `pytest <its file>` would run), then
the other tests that ran the changed function (the impact map, the coverage run), fastest first;
their durations measured on the original code add up until the budget is spent. What the budget
cuts is not dropped: it runs right after the fix is applied (`heal-ls fix --apply`, the editor's
apply), so the promise holds — every passing test that exercises the changed code still passes,
or the user is told at once which one broke. The verdict says how many ran: "12 of 40 guards ran".

    chosen = select_guards(guards, durations, failing=["tests/test_x.py::test_y"], budget=30.0)
    chosen.run, chosen.cut, chosen.ran_text()
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

DEFAULT_SECONDS = 30.0  # measured guard time per verification (0: no limit)
# What pytest spends around each test beyond its measured duration (collection, setup, the
# report line): 18,000 guards of 0.1 ms each still take ~40 s, not 2.
PER_TEST = 0.002


@dataclass(frozen=True)
class GuardSelection:
    run: list[str] = field(default_factory=list)  # verified with every candidate, nearest first
    cut: list[str] = field(default_factory=list)  # over the budget: they run after the apply
    budget: float = DEFAULT_SECONDS

    @property
    def total(self) -> int:
        return len(self.run) + len(self.cut)

    def ran_text(self) -> str:
        """`12 of 40 guards ran (28 cut by the 30 s budget run after the apply)`."""
        text = f"{len(self.run)} of {self.total} guard{'s' * (self.total != 1)} ran"
        if self.cut:
            text += f" ({len(self.cut)} cut by the {self.budget:g} s budget run after the apply)"
        return text


def select_guards(
    guards: Sequence[str],
    durations: Mapping[str, float],
    failing: Sequence[str],
    budget: float = DEFAULT_SECONDS,
) -> GuardSelection:
    """The guards in order of nearness, cut where their measured time passes `budget` (a guard
    that does not fit is skipped, a later faster one may still fit); each costs its duration
    plus PER_TEST. The nearest guard always runs: a budget never turns a guarded fix into an
    unguarded one. budget <= 0: no limit."""
    near = {nodeid.split("::", 1)[0] for nodeid in failing}
    ordered = sorted(guards, key=lambda t: (t.split("::", 1)[0] not in near, durations.get(t, 0.0)))
    run: list[str] = []
    cut: list[str] = []
    spent = 0.0
    for nodeid in ordered:
        seconds = durations.get(nodeid, 0.0) + PER_TEST
        if not run or budget <= 0 or spent + seconds <= budget:
            run.append(nodeid)
            spent += seconds
        else:
            cut.append(nodeid)
    return GuardSelection(run, cut, budget)
