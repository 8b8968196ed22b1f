"""Rows of the command line's --json documents, for tests that need one whole (every field set,
any of them overridden)."""

from __future__ import annotations

from heal_ls.documents.fix import FixRow


def fix_row(status: str = "verified", **extra) -> FixRow:
    """A `heal-ls fix --json` row of one heal target, tests/test_a.py::test_a on pkg/a.py::f."""
    fields = {
        "test": "tests/test_a.py::test_a",
        "tests": ["tests/test_a.py::test_a"],
        "suspect": "pkg/a.py::f",
        "status": status,
        "proof": "",
        "guards": 1,
        "guard_tests": [],
        "guards_cut": [],
        "candidate_timeout": 0.0,
        "attempts": 0,
        "operators": {},
        "diff": "",
        "touched": [],
        "notes": [],
        "applied": False,
        "reason": "",
        "warning": None,
        "fixed_by": None,
        "tokens": 0,
        "tokens_in": 0,
        "tokens_out": 0,
        "cost": None,
        "model": None,
        "callers": 1,
        "seconds": 0.0,
    }
    return FixRow(**{**fields, **extra})
