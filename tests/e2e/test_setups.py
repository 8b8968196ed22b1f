"""`heal-ls check` agrees with plain pytest on every common setup in tests/setups/, for real.

One row per folder (benchmarks/setups.py runs it): plain pytest with the setup's own config and
`heal-ls check --json` on fresh copies must count the same failed and passed tests, name the
same failing ids, and check must exit 1 (every setup fails on purpose).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

HARNESS = Path(__file__).resolve().parents[2] / "benchmarks" / "setups.py"
_spec = importlib.util.spec_from_file_location("setups_harness", HARNESS)
assert _spec is not None and _spec.loader is not None
setups = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = setups  # its dataclasses look their module up there
_spec.loader.exec_module(setups)


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
