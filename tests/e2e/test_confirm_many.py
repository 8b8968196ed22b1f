"""The plugin-free confirmation with many asked tests (over invocation.SELECT_OVER, so their
files are the run's arguments): it keeps exactly the asked ids and its sentinel still runs last,
so an honest fix of a big suite is confirmed. In the real sandbox."""

import asyncio

from heal_ls.testing.confirm import CONFIRMED, confirm_run
from heal_ls.testing.invocation import SELECT_OVER
from heal_ls.testing.options import RunOptions

CASES = SELECT_OVER + 20
TEST_A = f"""import pytest


@pytest.mark.parametrize("n", range({CASES}))
def test_many(n):
    assert n >= 0


def test_not_asked():
    assert True
"""
TEST_B = "def test_last():\n    assert True\n"


def test_many_asked_tests_are_confirmed_exactly(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_a.py").write_text(TEST_A)
    (tmp_path / "test_b.py").write_text(TEST_B)
    asked = [f"test_a.py::test_many[{n}]" for n in range(CASES)] + ["test_b.py::test_last"]
    confirmed = asyncio.run(
        confirm_run(str(tmp_path), asked, RunOptions(test_timeout=10.0, sandbox=True))
    )
    assert confirmed.passed, confirmed.summary
    assert confirmed.summary == CONFIRMED
