"""`heal-ls fix --verify-seconds S`: candidates run the nearest guards within the budget; with
--apply the guards it cut run on the written fix, and one that broke is reported (exit 1)."""

import json

import pytest
from helpers.cli import heal_ls, openai_env, write
from helpers.fakemodel import FakeModelServer
from helpers.projects import CALC

pytestmark = pytest.mark.e2e

FIXED = "def total(items):\n    return sum(items)\n"


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


                def test_total_of_nothing_is_small():
                    assert total([]) <= 0
            """,
            # far from the failing test, slow, and it pins the bug: a fix breaks it
            "tests/test_report.py": """
                import time

                from shop.calc import total


                def test_report_total():
                    time.sleep(0.3)
                    assert total([5]) == 4
            """,
        },
    )
    return tmp_path


def fix(root, *args):
    with FakeModelServer(functions={"total": FIXED}) as server:
        done = heal_ls(
            "fix", str(root), "--provider", "openai", "--no-cache", "--test",
            "tests/test_calc.py::test_total", *args, env=openai_env(server),
        )  # fmt: skip
    return done


def test_the_guard_the_budget_cut_runs_after_the_apply_and_its_break_is_reported(project):
    done = fix(project, "--json", "--apply", "--force", "--verify-seconds", "0.1")
    assert done.returncode == 1, done.stderr
    (row,) = json.loads(done.stdout)["results"]
    assert row["status"] == "verified" and row["applied"]
    assert row["guard_tests"] == ["tests/test_calc.py::test_total_of_nothing_is_small"]
    assert row["guards_cut"] == ["tests/test_report.py::test_report_total"]
    assert "(1 of 2 guards ran (1 cut by the 0.1 s budget run after the apply))" in row["proof"]
    assert row["after_apply"] == {
        "ran": ["tests/test_report.py::test_report_total"],
        "broken": ["tests/test_report.py::test_report_total"],
        "error": None,
    }
    assert "return sum(items)\n" in (project / "shop" / "calc.py").read_text()


def test_the_report_says_what_the_after_apply_run_found(project):
    done = fix(project, "--apply", "--force", "--verify-seconds", "0.1")
    assert done.returncode == 1
    assert (
        "# after the apply, 0 of 1 cut guards pass; BROKEN by the fix: "
        "tests/test_report.py::test_report_total"
    ) in done.stdout


def test_without_a_budget_every_guard_runs_and_the_breaking_fix_is_never_verified(project):
    done = fix(project, "--json", "--verify-seconds", "0", "--max-attempts", "1")
    (row,) = json.loads(done.stdout)["results"]
    assert row["status"] != "verified" and row["guards_cut"] == []
    assert "calc.py" in row["suspect"]
