"""Reading a JUnit XML report: pytest ids back from classname + name, outcomes and counts,
the exception from the traceback's E lines, CI paths matched to this checkout."""

from heal_ls.testing.ci_report import local_path, nodeid_of, read_report

REPORT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
<testcase classname="tests.test_calc.TestAdd" name="test_one[1-2]" time="0.5" />
<testcase classname="tests.test_calc" name="test_skip" time="0.1"><skipped message="later" /></testcase>
<testcase classname="tests.test_calc" name="test_assert" time="0.2"><failure message="assert 3 == 4">def test_assert():
&gt;       assert add(1, 2) == 4
E       assert 3 == 4
E        +  where 3 = add(1, 2)

tests/test_calc.py:9: AssertionError</failure></testcase>
<testcase classname="tests.test_calc" name="test_fixture" time="0.0"><error message="failed on setup with &quot;ValueError: no db&quot;">@pytest.fixture
    def db():
&gt;       raise ValueError("no db")
E       ValueError: no db

/ci/home/work/proj/tests/conftest.py:4: ValueError</error></testcase>
</testsuite></testsuites>"""


def project(tmp_path):
    (tmp_path / "tests").mkdir()
    for name in ("test_calc.py", "conftest.py"):
        (tmp_path / "tests" / name).write_text("import pytest\n\n\n\ndef x():\n    pass\n")
    (tmp_path / "report.xml").write_text(REPORT)
    return tmp_path


def test_outcomes_counts_and_ids(tmp_path):
    root = str(project(tmp_path))
    run = read_report(str(tmp_path / "report.xml"), root)
    assert [(t.nodeid, t.outcome) for t in run.tests] == [
        ("tests/test_calc.py::TestAdd::test_one[1-2]", "passed"),
        ("tests/test_calc.py::test_skip", "skipped"),
        ("tests/test_calc.py::test_assert", "failed"),
        ("tests/test_calc.py::test_fixture", "error"),
    ]
    assert (run.passed, run.failed, run.errors, run.skipped) == (1, 1, 1, 1)
    assertion, setup = run.failures
    assert (assertion.exc_type, assertion.message) == (
        "AssertionError",
        "assert 3 == 4\n+  where 3 = add(1, 2)",
    )
    assert (setup.exc_type, setup.message) == ("ValueError", "no db")
    assert setup.frames[-1].path == str(tmp_path / "tests" / "conftest.py")  # the CI's path, here


def test_ids_of_modules_that_are_not_here_stay_readable(tmp_path):
    assert nodeid_of("pkg.test_gone", "test_x", str(tmp_path)) == "pkg::test_gone::test_x"
    assert nodeid_of("", "test_x", str(tmp_path)) == "test_x"


def test_installed_packages_are_never_matched_to_the_checkout(tmp_path):
    (tmp_path / "json").mkdir()
    (tmp_path / "json" / "__init__.py").write_text("")
    installed = "/usr/lib/python3.11/json/__init__.py"
    assert local_path(installed, str(tmp_path)) == installed
    assert local_path("/ci/x/json/__init__.py", str(tmp_path)) == str(
        tmp_path / "json" / "__init__.py"
    )
