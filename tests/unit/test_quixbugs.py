"""A tiny look-alike of a jkoppel/QuixBugs checkout, built in a temp folder by the tests.

Same layout and test mechanics as the real one: python_programs/, correct_python_programs/,
python_testcases/test_<name>.py importing `from python_programs.<name> import <name>` (or the
correct one under `--correct`, set up by the root conftest.py), json_testcases/<name>.json
read by python_testcases/load_testdata.py. bitcount's bug loops forever on most inputs.
"""

from __future__ import annotations

import json
from pathlib import Path

CONFTEST = """import pytest


def pytest_addoption(parser):
    parser.addoption("--correct", action="store_true")


def pytest_configure(config):
    pytest.use_correct = config.getoption("correct")
"""

LOAD_TESTDATA = """import json
from pathlib import Path


def load_json_testcases(algorithm_name):
    quixbugs_root = Path(__file__).parent.parent
    testcase_path = quixbugs_root / "json_testcases" / f"{algorithm_name}.json"
    with open(testcase_path) as f:
        return [json.loads(line) for line in f]
"""

TEST_TEMPLATE = """import pytest
from load_testdata import load_json_testcases

if pytest.use_correct:
    from correct_python_programs.{name} import {name}
else:
    from python_programs.{name} import {name}

testdata = load_json_testcases({name}.__name__)


@pytest.mark.parametrize("input_data,expected", testdata)
def test_{name}(input_data, expected):
    assert {name}(*input_data) == expected
"""

PROGRAMS = {
    "gcd": (
        "def gcd(a, b):\n    if b == 0:\n        return a\n    else:\n        return gcd(a % b, b)\n",
        "def gcd(a, b):\n    if b == 0:\n        return a\n    else:\n        return gcd(b, a % b)\n",
        [[[17, 0], 17], [[13, 13], 13], [[35, 21], 7]],
    ),
    "bitcount": (
        "def bitcount(n):\n    count = 0\n    while n:\n        n ^= n - 1\n        count += 1\n"
        "    return count\n",
        "def bitcount(n):\n    count = 0\n    while n:\n        n &= n - 1\n        count += 1\n"
        "    return count\n",
        [[[0], 0], [[127], 7], [[1], 1]],
    ),
    "max_sublist_sum": (
        "def max_sublist_sum(arr):\n    max_ending_here = 0\n    max_so_far = 0\n\n"
        "    for x in arr:\n        max_ending_here = max_ending_here + x\n"
        "        max_so_far = max(max_so_far, max_ending_here)\n\n    return max_so_far\n",
        "def max_sublist_sum(arr):\n    max_ending_here = 0\n    max_so_far = 0\n\n"
        "    for x in arr:\n        max_ending_here = max(0, max_ending_here + x)\n"
        "        max_so_far = max(max_so_far, max_ending_here)\n\n    return max_so_far\n",
        [[[[4, -5, 2, 1, -1, 3]], 5], [[[-1, -2]], 0], [[[1, 2, 3]], 6]],
    ),
}


def build_checkout(root: Path) -> Path:
    """Write the look-alike checkout under root and return root."""
    for folder in ("python_programs", "correct_python_programs", "python_testcases"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "json_testcases").mkdir(exist_ok=True)
    (root / "conftest.py").write_text(CONFTEST)
    (root / "python_testcases" / "load_testdata.py").write_text(LOAD_TESTDATA)
    (root / "python_programs" / "node.py").write_text("class Node:\n    pass\n")
    for name, (buggy, fixed, cases) in PROGRAMS.items():
        (root / "python_programs" / f"{name}.py").write_text(buggy)
        (root / "correct_python_programs" / f"{name}.py").write_text(fixed)
        (root / "python_testcases" / f"test_{name}.py").write_text(TEST_TEMPLATE.format(name=name))
        lines = "".join(json.dumps(case) + "\n" for case in cases)
        (root / "json_testcases" / f"{name}.json").write_text(lines)
    return root


# -- the loader -----------------------------------------------------------------------------

import pytest  # noqa: E402
from heal_ls.bench.suites import SuiteError, load_suite, quixbugs_suite  # noqa: E402


@pytest.fixture
def checkout(tmp_path):
    return build_checkout(tmp_path / "QuixBugs")


def test_loader_finds_programs_with_tests_and_their_reference(checkout):
    cases = quixbugs_suite(checkout)
    assert [c.name for c in cases] == ["bitcount", "gcd", "max_sublist_sum"]  # no node.py
    gcd = cases[1]
    assert gcd.qualname == "gcd" and gcd.suite == "quixbugs"
    assert gcd.target == str(checkout / "python_programs" / "gcd.py")
    assert gcd.tests == ["python_testcases/test_gcd.py"]
    assert gcd.reference_source == PROGRAMS["gcd"][1]


def test_only_selects_and_unknown_names_are_an_error(checkout):
    cases = load_suite("quixbugs", quixbugs_dir=str(checkout), only=["gcd"])
    assert [c.name for c in cases] == ["gcd"]
    with pytest.raises(SuiteError, match="no such bug"):
        load_suite("quixbugs", quixbugs_dir=str(checkout), only=["nope"])


def test_not_a_checkout_is_a_clear_error(tmp_path):
    with pytest.raises(SuiteError, match="not a QuixBugs checkout"):
        quixbugs_suite(tmp_path)
    with pytest.raises(SuiteError, match="needs --quixbugs-dir"):
        load_suite("quixbugs")


# -- the bench on it (real pytest runs; bitcount's bug hangs until the per-test timeout) ----------


@pytest.mark.e2e
def test_bench_heals_the_lookalike_checkout(checkout, capsys):
    import json

    from heal_ls.cli import main

    code = main(["bench", "--suite", "quixbugs", "--quixbugs-dir", str(checkout),
                 "--test-timeout", "2", "--json"])  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    rows = {row["name"]: row for row in report["rows"]}
    assert code == 0, rows
    assert all(row["fixed"] and row["located"] for row in rows.values())
    assert rows["gcd"]["equal"] == "same" and rows["bitcount"]["equal"] == "same"
    assert report["summary"]["fixed"] == 3
    assert all(row["correct"] is None for row in rows.values())  # QuixBugs has no hidden tests
    assert report["summary"]["hidden"] == 0 and report["summary"]["verified_wrong"] == 0
    assert not (checkout / "python_programs" / "__pycache__").exists()  # ran in a copy
