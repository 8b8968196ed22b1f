"""A shared cause is healed once: after a fix, re-run the other failing tests on the fixed code.

Two tests may fail from one cause (a property both use) while their top suspects differ. Healing
the first target's function may already fix the second test; asking the model to "fix" the
second, innocent function would then change correct code. So after each accepted fix the
remaining targets' tests run against the fixed modules, and those that really pass (call-phase
`passed`, complete session) are reported `fixed by <qualname>` instead of healed. A weak fix
that is not applied is a cause all the same: the remaining tests run on its candidate, and those
that pass are grouped under it (`would be fixed by`), never healed on their own.
"""

from __future__ import annotations

from heal_ls.heal.targets import HealTarget
from heal_ls.heal.verify import run_sandboxed_tests
from heal_ls.models import Failure
from heal_ls.testing.options import RunOptions


async def recheck(
    root: str,
    remaining: list[HealTarget],
    options: RunOptions,
) -> set[str]:
    """Node ids among the remaining targets' failing tests that pass on the fixed code (served
    as `options.overlay`)."""
    nodeids = [f.test for t in remaining for f in t.failures if f.test]
    if not nodeids:
        return set()
    run = await run_sandboxed_tests(root, nodeids, options)
    if run.error or run.interrupted or run.timed_out:
        return set()
    return {t.nodeid for t in run.tests if t.outcome == "passed" and t.call == "passed"}


def split_fixed(target: HealTarget, passing: set[str]) -> tuple[list[Failure], list[Failure]]:
    """(failures now passing, failures still failing) of one target; scripts stay failing."""
    fixed = [f for f in target.failures if f.test and f.test in passing]
    return fixed, [f for f in target.failures if f not in fixed]
