"""The local repairer's chosen fix, end to end: not the overfitting shape that also passes, and
no trivial leftover (`- 0`) in the verified diff."""

from __future__ import annotations

import json

import pytest
from helpers.cli import heal_ls, write

pytestmark = pytest.mark.e2e


def local_fix(root) -> dict:
    proc = heal_ls("fix", str(root), "--provider", "local", "--json", "--no-cache")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (row,) = json.loads(proc.stdout)["results"]
    assert row["status"] == "verified" and row["guards"] == 1
    return row


def test_a_negated_returned_predicate_loses_to_the_plain_fix(tmp_path):
    """`==` -> `!=` on the returned predicate passes both tests (the guard checks only the type)
    and is the cheapest edit; `1` -> `0` is the fix. Overfitting shapes go last."""
    write(
        tmp_path,
        {
            "conftest.py": '"""Puts this folder on sys.path."""\n',
            "digits.py": "def ends_in_zero(n):\n    return n % 10 == 1\n",
            "tests/test_digits.py": """
                from digits import ends_in_zero


                def test_twenty():
                    assert ends_in_zero(20)


                def test_answers_a_bool():
                    assert isinstance(ends_in_zero(7), bool)
            """,
        },
    )
    row = local_fix(tmp_path)
    assert "+    return n % 10 == 0\n" in row["diff"], row["diff"]


def test_a_constant_nudged_to_zero_is_shown_without_the_leftover(tmp_path):
    """The issue's `sum(p) / len(p) - 1` healed as `... - 0`: now the plain expression."""
    write(
        tmp_path,
        {
            "conftest.py": '"""Puts this folder on sys.path."""\n',
            "stats.py": "def mean(p):\n    return sum(p) / len(p) - 1\n",
            "tests/test_stats.py": """
                import pytest
                from stats import mean


                def test_mean():
                    assert mean([2, 4]) == 3


                def test_mean_of_nothing_is_an_error():
                    with pytest.raises(ZeroDivisionError):
                        mean([])
            """,
        },
    )
    row = local_fix(tmp_path)
    assert "+    return sum(p) / len(p)\n" in row["diff"], row["diff"]
