"""`heal-ls check` agrees with plain pytest on every common setup in tests/setups/, for real.

One row per folder (benchmarks/setups.py runs it): plain pytest with the setup's own config and
`heal-ls check --json` on fresh copies must count the same failed and passed tests, name the
same failing ids, and check must exit 1 (every setup fails on purpose).
"""

from __future__ import annotations

import pytest
from helpers.setups import load_harness

pytestmark = pytest.mark.e2e

setups = load_harness()


@pytest.mark.parametrize("name", setups.names())
def test_check_counts_what_pytest_counts(name):
    row = setups.run_setup(name)
    if row.unavailable:
        pytest.skip(row.unavailable)
    theirs, ours = row.pytest, row.heal
    assert theirs.failed + theirs.errors >= 1, (
        f"{name} is meant to fail: pytest exited {theirs.exit}"
    )
    assert (ours.failed, ours.passed, ours.errors) == (theirs.failed, theirs.passed, theirs.errors)
    assert ours.ids == theirs.ids
    assert ours.exit == theirs.exit == 1
