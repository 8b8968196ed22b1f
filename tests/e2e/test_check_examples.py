"""`heal-ls check` on every example, for real: pytest subprocesses, the JSON, the exit codes.

Every example is checked as shipped (one failure, located), and run again with the fix from
examples/README.md applied (all pass). All runs start at once to keep the wall time short.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
RUN_TIMEOUT = 240  # generous: the runs share two cores with everything else

# example -> (extra args, failure id, exc_type, top suspect (path, qualname, start, def, end, focus))
EXPECTED = {
    "inventory": ([], "tests/test_inventory.py::test_remove_all", "KeyError",
                  ("shop/inventory.py", "Inventory.remove", 11, 11, 18, 13)),
    "nested": ([], "tests/test_render.py::test_render_table", "IndexError",
               ("tables/render.py", "render_table.<locals>.render_row", 13, 13, 15, 14)),
    "async_fetch": ([], "tests/test_fetch.py::test_fetch_all_pages", "IndexError",
                    ("pager/fetch.py", "fetch_page", 6, 6, 9, 9)),
    "stats": ([], "tests/test_stats.py::test_mean", "AssertionError",
              ("figures/stats.py", "mean", 4, 4, 9, 4)),
    "deep_crash": ([], "tests/test_invoice.py::test_invoice_with_code", "KeyError",
                   ("billing/invoice.py", "discounted", 16, 16, 20, 20)),
    "script_crash": (["--script", "tools/report.py"], "script:tools/report.py", "ValueError",
                     ("tools/report.py", "parse_amount", 9, 9, 11, 11)),
    "hang": (["--test-timeout", "2"], "tests/test_search.py::test_contains_missing_big", None,
             ("lookup/search.py", "insertion_point", 4, 4, 13, None)),
    "property": ([], "tests/test_temperature.py::test_boiling_in_fahrenheit", "AssertionError",
                 ("weather/temperature.py", "Temperature.fahrenheit", 12, 13, 15, 13)),
}  # fmt: skip

ROW = re.compile(
    r"^\| (\w+) \| `([^`]+)` `([^`]+)` \| .* \| (\d+) \| `([^`]+)` \| `([^`]+)` \|$", re.M
)


def readme_fixes(repo_root):
    """{example: (path, qualname, line, buggy, fixed)} from the examples/README.md table."""
    text = (repo_root / "examples" / "README.md").read_text()
    return {m[1]: (m[2], m[3], int(m[4]), m[5], m[6]) for m in ROW.finditer(text)}


def apply_fix(folder, path, line, buggy, fixed):
    target = folder / path
    lines = target.read_text().splitlines(keepends=True)
    assert lines[line - 1].count(buggy) == 1, f"{path}:{line} does not hold {buggy!r}"
    lines[line - 1] = lines[line - 1].replace(buggy, fixed)
    target.write_text("".join(lines))


def check_command(folder, *args):
    return [sys.executable, "-m", "heal_ls", "check", str(folder), *args]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Start every run at once: `heal-ls check --json` on each example as shipped, plain pytest
    on all the fixed copies together (one process), the fixed script, and one human check."""
    fixes = readme_fixes(REPO)
    base = tmp_path_factory.mktemp("examples")
    ignore = shutil.ignore_patterns("__pycache__", ".pytest_cache")
    procs = {}
    for name, (args, *_rest) in EXPECTED.items():
        shutil.copytree(REPO / "examples" / name, base / "buggy" / name, ignore=ignore)
        shutil.copytree(REPO / "examples" / name, base / "fixed" / name, ignore=ignore)
        path, _, line, buggy, fixed = fixes[name]
        apply_fix(base / "fixed" / name, path, line, buggy, fixed)
        procs[name, "buggy"] = _start(check_command(base / "buggy" / name, *args, "--json"))
    procs["inventory", "human"] = _start(check_command(base / "buggy" / "inventory"))
    fixed = [base / "fixed" / name for name in EXPECTED]
    (base / "fixed" / "pytest.ini").write_text("[pytest]\n")  # one rootdir for all of them
    options = ["-rA", "-p", "no:cacheprovider", "-c", base / "fixed" / "pytest.ini"]
    procs["all", "fixed"] = _start(
        [sys.executable, "-m", "pytest", *map(str, options), *fixed],
        cwd=base / "fixed",
        PYTHONPATH=os.pathsep.join(map(str, fixed)),
    )
    script = base / "fixed" / "script_crash" / "tools" / "report.py"
    procs["script_crash", "fixed"] = _start([sys.executable, str(script)])
    return {key: _finish(proc) for key, proc in procs.items()}


def _start(cmd, cwd=None, **extra_env):
    # The examples need no third-party pytest plugins; not loading this venv's saves ~2 s each.
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", **extra_env}
    return subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd
    )


def _finish(proc):
    try:
        out, err = proc.communicate(timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    return proc.returncode, out, err


def test_readme_lists_every_example_with_the_located_target(repo_root):
    fixes = readme_fixes(repo_root)
    assert set(fixes) == set(EXPECTED)
    for name, (_, _, _, suspect) in EXPECTED.items():
        assert fixes[name][:2] == suspect[:2]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_check_locates_the_bug(runs, name):
    returncode, out, err = runs[name, "buggy"]
    assert returncode == 1, err
    report = json.loads(out)
    _, failure_id, exc_type, expected = EXPECTED[name]
    assert report["failed"] + report["errors"] == 1 and report["root"].endswith(name)
    (failure,) = report["failures"]
    assert failure["id"] == failure_id
    assert exc_type is None or failure["exc_type"] == exc_type
    assert failure["healable"] is True and failure["reason"] is None
    top = failure["suspects"][0]
    got = (top["path"], top["qualname"], top["start_line"], top["def_line"], top["end_line"])
    assert got == expected[:5]
    assert expected[5] is None or top["focus_line"] == expected[5]
    assert all("/" in f["path"] or f["path"].endswith(".py") for f in failure["frames"])
    assert not any(f["path"].startswith("/") for f in failure["frames"] if name in f["path"])


def test_json_shape_is_the_documented_one(runs):
    report = json.loads(runs["inventory", "buggy"][1])
    assert {"root", "passed", "failed", "errors", "seconds", "failures"} <= set(report)
    assert report["passed"] == 3
    failure = report["failures"][0]
    keys = {"id", "test", "script", "exc_type", "message", "timed_out", "frames", "suspects"}
    assert keys | {"healable", "reason"} <= set(failure)
    assert failure["test"] == "tests/test_inventory.py::test_remove_all"
    assert failure["script"] is None and failure["message"] == "'pear'"
    assert failure["frames"][-1] == {"path": "shop/inventory.py", "line": 13, "function": "remove"}
    suspect = failure["suspects"][0]
    assert {"path", "qualname", "start_line", "end_line", "reason"} <= set(suspect)
    assert suspect["reason"] == "raised here"


def test_script_failure_json(runs):
    failure = json.loads(runs["script_crash", "buggy"][1])["failures"][0]
    assert failure["test"] is None and failure["script"] == "tools/report.py"
    assert [s["qualname"] for s in failure["suspects"]] == [
        "parse_amount",
        "totals_by_city",
        "main",
    ]


def test_hang_is_localised_where_it_was_stuck(runs):
    failure = json.loads(runs["hang", "buggy"][1])["failures"][0]
    assert failure["timed_out"] is True
    top = failure["suspects"][0]
    assert 7 <= top["focus_line"] <= 12 and "timed out" in top["reason"]


def test_ranking_of_the_assert_only_failures(runs):
    stats = json.loads(runs["stats", "buggy"][1])["failures"][0]
    assert stats["suspects"][0]["reason"] == "called on the failing line tests/test_stats.py:17"
    prop = json.loads(runs["property", "buggy"][1])["failures"][0]
    names = [s["qualname"] for s in prop["suspects"]]
    assert names[0] == "Temperature.fahrenheit" and "Temperature.__init__" in names


def test_deep_crash_lists_the_callers_after_the_culprit(runs):
    failure = json.loads(runs["deep_crash", "buggy"][1])["failures"][0]
    suspects = [(s["qualname"], s["reason"]) for s in failure["suspects"]]
    assert suspects == [
        ("discounted", "raised here"),
        ("line_total", "on the failing call path"),
        ("invoice_total", "on the failing call path"),
    ]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_readme_fix_makes_every_test_pass(runs, name):
    returncode, out, err = runs["all", "fixed"]
    outcomes = re.findall(rf"^(PASSED|FAILED|ERROR) {name}/tests/", out, re.M)
    assert outcomes and set(outcomes) == {"PASSED"}, out[-3000:]
    assert returncode == 0, out[-3000:]


def test_the_readme_fix_makes_the_script_run(runs):
    returncode, out, err = runs["script_crash", "fixed"]
    assert (returncode, out) == (0, "Lyon: 15.00\nParis: 7.50\n"), err


def test_the_readme_sample_is_what_check_prints(runs, repo_root):
    """README's `heal-ls check` sample is the real first line for examples/inventory (it said
    :18:9 where check says :13:9; issue 25, item 9)."""
    readme = (repo_root / "README.md").read_text(encoding="utf-8")
    section = readme.split("## heal-ls check", 1)[1]
    sample = section.split("```\n", 2)[2].split("\n```", 1)[0].strip()
    assert sample == runs["inventory", "human"][1].splitlines()[0]


def test_human_output_reads_like_a_linter(runs):
    returncode, out, err = runs["inventory", "human"]
    assert returncode == 1
    assert out.splitlines() == [
        "shop/inventory.py:13:9: tests/test_inventory.py::test_remove_all failed: "
        "KeyError: 'pear' -> heal target Inventory.remove",
        "    tests/test_inventory.py:31 in test_remove_all",
        "    shop/inventory.py:13 in remove <- heal target",
    ]
    assert re.fullmatch(r"1 failed, 3 passed in \d+\.\ds\n", err)
