"""`heal-ls bench` end to end on two bundled bugs: real pytest runs, the local repairer, a table."""

from __future__ import annotations

import json

import pytest
from heal_ls.bench.rows import BenchSummary
from heal_ls.bench.suites import examples_suite
from heal_ls.bench.table import totals_line
from heal_ls.cli import main
from helpers.fakemodel import FakeModelServer


@pytest.mark.e2e
def test_bench_heals_two_bundled_bugs_and_prints_a_table(capsys):
    code = main(["bench", "--only", "clamp", "counter", "--test-timeout", "5"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0, out
    assert out[0].split()[:6] == ["bug", "located", "fixed", "correct", "equal", "weak"]
    rows = {line.split()[0]: line.split() for line in out[1:3]}
    assert rows["clamp"][1:5] == ["yes", "yes", "yes", "same"]  # hidden tests pass too
    assert rows["counter"][1:4] == ["yes", "yes", "yes"]  # nested def: in place or via its outer
    assert out[-1].startswith("fixed 2/2, correct 2/2 (hidden tests pass), verified but wrong 0")


@pytest.mark.e2e
def test_bench_json_reports_every_column(capsys):
    code = main(["bench", "--only", "sum_to", "--json"])
    report = json.loads(capsys.readouterr().out)
    (row,) = report["rows"]
    assert code == 0
    assert row["fixed"] and row["equal"] == "same" and row["model_calls"] == 0
    assert row["attempts"] >= 1 and row["seconds"] >= row["heal_seconds"] > 0
    assert report["summary"]["fixed"] == 1 and report["summary"]["tokens"] == 0


# Passes every visible test of sum_to (test_zero is its guard) and nothing else: overfit.
LOOKUP = 'def sum_to(n):\n    """Sum of 1..n inclusive."""\n    return {3: 6, 10: 55}.get(n, 0)\n'


@pytest.mark.e2e
def test_a_verified_fix_that_fails_hidden_tests_is_counted_and_shown(capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key-not-real")
    with FakeModelServer(functions={"sum_to": LOOKUP}) as server:
        args = ["--provider", "openai", "--base-url", server.openai_url, "--json"]
        code = main(["bench", "--only", "sum_to", *args])
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert code == 1, captured.err  # a wrong "verified" fix fails the bench
    (row,) = report["rows"]
    assert row["status"] == "verified" and row["fixed"] and row["correct"] is False, row
    assert row["hidden_failed"] == ["hidden/test_hidden_sum_to.py::test_other_sums"]
    assert report["summary"]["verified_wrong"] == 1 and report["summary"]["correct"] == 0
    (line,) = [x for x in captured.err.splitlines() if x.startswith("sum_to ")]  # the table row
    assert line.split()[:4] == ["sum_to", "yes", "yes", "no"]
    assert line.endswith("verified but fails hidden tests: test_other_sums")
    totals = totals_line(BenchSummary(**report["summary"]))  # what the text mode prints last
    assert "correct 0/1 (hidden tests pass), verified but wrong 1," in totals


@pytest.mark.e2e
def test_a_guard_stops_the_cheap_overfit_of_a_sibling_breaking_bug(capsys):
    """median: `len(s) // 3` for `// 2` makes the failing even-count test pass and breaks the
    passing odd-count test; only that guard keeps it from being "verified"."""
    code = main(["bench", "--only", "median", "--json"])
    captured = capsys.readouterr()
    (row,) = json.loads(captured.out)["rows"]
    assert code == 0, captured.err
    assert row["status"] == "verified" and row["correct"] and row["hidden_failed"] == [], row
    assert row["guard_stops"] >= 1 and row["attempts"] > row["guard_stops"], row
    (line,) = [x for x in captured.err.splitlines() if x.startswith("median ")]
    assert line.split()[1:4] == ["yes", "yes", "yes"]


def test_ranks_mode_runs_no_tests(capsys):
    assert main(["bench", "--ranks", "--only", "clamp", "power"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("reference found for 2/2")


def test_bad_suite_arguments_are_one_line_errors(capsys):
    assert main(["bench", "--only", "nope"]) == 2
    assert "no such bug(s): nope" in capsys.readouterr().err


MULTI_NODE = {c.name: c for c in examples_suite() if c.reference_module_code}


@pytest.mark.e2e
def test_bench_heals_multi_node_bugs_through_the_fake_model(capsys, monkeypatch):
    assert set(MULTI_NODE) >= {"order_total", "exact_mean"}
    answers = {c.qualname: c.reference_module_code for c in MULTI_NODE.values()}
    monkeypatch.setenv("OPENAI_API_KEY", "test-key-not-real")
    with FakeModelServer(functions=answers) as server:
        args = ["--provider", "openai", "--base-url", server.openai_url, "--json"]
        code = main(["bench", "--only", *MULTI_NODE, *args])
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert code == 0, rows
    assert {r["name"] for r in rows} == set(MULTI_NODE)
    for row in rows:
        assert row["fixed"] and row["equal"] == "same" and row["model_calls"] == 1, row


@pytest.mark.e2e
def test_the_local_repairer_reports_multi_node_bugs_honestly(capsys):
    code = main(["bench", "--only", *MULTI_NODE, "--budget-count", "10", "--json"])
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert code == 1
    for row in rows:
        assert not row["fixed"] and row["status"] in ("failed", "unverified"), row
        assert row["model_calls"] == 0 and row["note"], row
