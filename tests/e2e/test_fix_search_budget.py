"""`heal-ls fix --local-seconds S` is a promise: a candidate whose tests are still running when the
search's time is up is stopped, and the result says the budget ended and what ran and what did
not (issue 22: packaging-3e67fc77 ran 11 minutes on a 20 s budget, one candidate's guards 545 s).

The guards are fast on the original code (guard discovery) and take 40 x 0.5 s = 20 s in the
candidates' sandboxed runs (GUARD_SLEEP reaches only those, through --test-env), each under the
per-test timeout: a search that waited for its first candidates could not end within 20 s."""

import json

import pytest
from helpers.cli import heal_ls, write
from helpers.projects import CALC

pytestmark = pytest.mark.e2e

GUARD_SECONDS = 40 * 0.5  # what one candidate's guards take in its sandboxed run


@pytest.fixture
def project(tmp_path):
    write(
        tmp_path,
        {
            **CALC,
            "tests/test_calc.py": """
                from shop.calc import total


                def test_total():
                    assert total([1, 2]) == 3
            """,
            "tests/test_guards.py": """
                import os
                import time

                import pytest

                from shop.calc import total


                @pytest.mark.parametrize("n", range(40))
                def test_total_is_a_number(n):
                    time.sleep(float(os.environ.get("GUARD_SLEEP", "0")))
                    assert isinstance(total([n]), int)
            """,
        },
    )
    return tmp_path


def test_the_search_stops_when_its_time_is_up_and_says_what_did_not_run(project):
    done = heal_ls(
        "fix", str(project), "--provider", "local", "--no-cache", "--json",
        "--test", "tests/test_calc.py::test_total", "--local-seconds", "2",
        "--test-env", "GUARD_SLEEP=0.5",
    )  # fmt: skip
    (row,) = json.loads(done.stdout)["results"]
    assert row["status"] in ("failed", "unverified"), row
    assert "the 2 s local search budget ended" in row["reason"]
    assert "stopped mid-run" in row["reason"] and "not tried" in row["reason"]
    assert row["guards"] == 40  # the candidates had every guard to run: the time cut them
    # discovery and start-up are seconds; one candidate's guards alone would be 20 s
    assert row["seconds"] < GUARD_SECONDS, row["seconds"]
