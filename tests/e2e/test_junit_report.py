"""`heal-ls check --from report.xml`: a CI run's JUnit XML report becomes failures on the right
function without running a test, whatever traceback style the CI chose and wherever the CI
machine kept the checkout (its absolute paths are matched to this one)."""

import json
import subprocess
import sys

import pytest
from heal_ls.diagnose import diagnose_report
from helpers.cli import heal_check
from helpers.projects import write_files

pytestmark = pytest.mark.e2e

STYLES = ["auto", "short", "native"]  # --tb=line and no write no frames to the report


def ci_report(project, tmp_path, style: str, ci_root=None) -> str:
    """Run the suite as CI would (real pytest, --junitxml), from `ci_root` when given: a copy
    of the checkout elsewhere, so the report's paths are not this checkout's."""
    where = ci_root or project
    if ci_root is not None:
        subprocess.run(["cp", "-r", str(project), str(ci_root)], check=True)
    report = tmp_path / f"report-{style}.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--tb={style}",
         f"--junitxml={report}", "-o", "junit_family=xunit2"],
        cwd=where, capture_output=True, check=False,
    )  # fmt: skip
    return str(report)


def ran_marker(project):
    return project / "ran.txt"


@pytest.fixture
def project(example_copy):
    workspace = example_copy("inventory")
    conftest = "import pathlib\n\n\ndef pytest_sessionstart(session):\n"
    conftest += "    pathlib.Path(__file__).with_name('ran.txt').write_text('ran')\n"
    (workspace / "conftest.py").write_text(conftest)
    return workspace


@pytest.mark.parametrize("style", STYLES)
def test_a_ci_report_is_located_without_running_a_test(project, tmp_path, style):
    report = ci_report(project, tmp_path, style, ci_root=tmp_path / "ci-checkout")
    result = heal_check("--from", report, "--json", cwd=project)
    assert result.returncode == 1, result.stderr
    document = json.loads(result.stdout)
    assert (document["failed"], document["passed"]) == (1, 3)
    [failure] = document["failures"]
    assert failure["test"] == "tests/test_inventory.py::test_remove_all"
    assert failure["exc_type"] == "KeyError"
    top = failure["suspects"][0]
    assert (top["qualname"], top["path"], top["start_line"]) == (
        "Inventory.remove",
        "shop/inventory.py",  # this checkout's file (relative to it), not the CI machine's
        11,
    )
    assert failure["frames"][-1] == {"path": "shop/inventory.py", "line": 13, "function": "remove"}
    assert not ran_marker(project).exists()  # nothing ran here


def test_what_is_not_a_report_is_a_clear_usage_error(project, tmp_path):
    (tmp_path / "notes.xml").write_text("<html><body>not a report</body></html>")
    for bad, says in (
        (tmp_path / "notes.xml", "not a JUnit XML report"),
        (tmp_path / "missing.xml", "cannot read"),
        (project / "shop" / "inventory.py", "does not parse"),
    ):
        result = heal_check("--from", str(bad), cwd=project)
        assert result.returncode == 2 and says in result.stderr, result.stderr
        assert "Traceback" not in result.stderr


def test_a_helper_of_a_collected_check_file_is_no_target_of_a_report(tmp_path):
    # python_files = *check.py: check_price raises in checks/basecheck.py, a file the CI run
    # collected a test from; the report's tests name it, so it is the test's own check and
    # the heal target is the one-off discount (it was check_price: the name rule alone)
    project = write_files(
        tmp_path / "checked",
        {
            "pytest.ini": "[pytest]\npython_files = *check.py\ntestpaths = checks\n",
            "shop.py": "def discount(price):\n    return price - 2\n",
            "checks/__init__.py": "",
            "checks/basecheck.py": """
                from shop import discount


                def check_price(got, want):
                    if got != want:
                        raise AssertionError(f"{got} != {want}")


                def test_zero():
                    check_price(discount(2), 0)
                """,
            "checks/pricecheck.py": """
                from checks.basecheck import check_price
                from shop import discount


                def test_ten():
                    check_price(discount(10), 9)
                """,
        },
    )
    report = ci_report(project, tmp_path, "auto")
    run, [(failure, located)] = diagnose_report(str(project), report)
    assert failure.test == "checks/pricecheck.py::test_ten" and run.passed == 1
    assert [s.qualname for s in located.suspects][:1] == ["discount"]
    assert "check_price" not in [s.qualname for s in located.suspects]
