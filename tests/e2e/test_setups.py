"""`heal-ls check` agrees with plain pytest on every common setup in tests/setups/, for real.

One row per folder (benchmarks/setups.py runs it): plain pytest with the setup's own config and
`heal-ls check --json` on fresh copies must count the same failed and passed tests, name the
same failing ids, and check must exit 1 (every setup fails on purpose).
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
from helpers.cli import heal_ls
from helpers.setups import load_harness

pytestmark = [pytest.mark.e2e, pytest.mark.venv_plugins]

setups = load_harness()


@pytest.mark.parametrize("name", setups.names())
def test_check_counts_what_pytest_counts(name):
    # the module's PYTEST_ADDOPTS (tests/conftest.py: `-p no:` this venv's own test tools, ~3 s
    # of CPU per pytest start) reaches both sides; the harness drops the variable by default
    row = setups.run_setup(name, addopts=os.environ.get("PYTEST_ADDOPTS", ""))
    if row.unavailable:
        pytest.skip(row.unavailable)
    theirs, ours = row.pytest, row.heal
    assert theirs.failed + theirs.errors >= 1, (
        f"{name} is meant to fail: pytest exited {theirs.exit}"
    )
    assert (ours.failed, ours.passed, ours.errors) == (theirs.failed, theirs.passed, theirs.errors)
    assert ours.ids == theirs.ids
    assert ours.exit == theirs.exit == 1


# Candidates run with an overlay, a sandbox and a pytest cache of their own: under `-n 2` they
# run in pytest's own process; under `--lf` the cache plugin stays on, so the option parses;
# under `--cov` pytest-cov writes its data file in the run's own folder (the workspace is
# read-only in the sandbox).
@pytest.mark.parametrize("name", ["xdist_n2", "last_failed", "cov", "xdist_cov"])
def test_fix_is_verified_under_the_setups_config(name, tmp_path):
    root = tmp_path / name
    shutil.copytree(setups.SETUPS / name, root)
    done = heal_ls("fix", str(root), "--provider", "local", "--no-cache", "--json")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    [row] = json.loads(done.stdout)["results"]
    assert (row["suspect"], row["status"]) == ("basket/prices.py::shipping", "verified"), row


REPORTS = {"coverage.xml", "htmlcov", ".coverage"}


def test_the_users_coverage_reports_and_threshold_are_theirs(tmp_path):
    """The project's pytest-cov writes coverage.xml and htmlcov/ and fails a session under 100%
    coverage. heal-ls's own runs of a few tests do neither (agent/heal_cov.py): the fix verifies
    and the user's tree gets no report; `heal-ls check`, standing in for pytest, writes them."""
    root = tmp_path / "cov_reports"
    shutil.copytree(setups.SETUPS / "cov_reports", root)
    done = heal_ls("fix", str(root), "--provider", "local", "--no-cache", "--json")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    [row] = json.loads(done.stdout)["results"]
    assert (row["suspect"], row["status"]) == ("basket/prices.py::shipping", "verified"), row
    assert not REPORTS & {path.name for path in root.iterdir()}
    done = heal_ls("check", str(root), "--json")
    assert done.returncode == 1, done.stderr[-2000:]
    assert {path.name for path in root.iterdir()} >= REPORTS
