"""`heal-ls bench` end to end on two bundled bugs: real pytest runs, the local repairer, a table."""

from __future__ import annotations

import json

import pytest
from heal_ls.bench.suites import examples_suite
from heal_ls.cli import main
from helpers.fakemodel import FakeModelServer


@pytest.mark.e2e
def test_bench_heals_two_bundled_bugs_and_prints_a_table(capsys):
    code = main(["bench", "--only", "clamp", "counter", "--test-timeout", "5"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0, out
    assert out[0].split()[:4] == ["bug", "located", "fixed", "equal"]
    rows = {line.split()[0]: line.split() for line in out[1:3]}
    assert rows["clamp"][1:4] == ["yes", "yes", "same"]
    assert rows["counter"][1:3] == ["yes", "yes"]  # nested def: healed in place or via its outer
    assert out[-1].startswith("fixed 2/2, equal to reference 2")


@pytest.mark.e2e
def test_bench_json_reports_every_column(capsys):
    code = main(["bench", "--only", "sum_to", "--json"])
    report = json.loads(capsys.readouterr().out)
    (row,) = report["rows"]
    assert code == 0
    assert row["fixed"] and row["equal"] == "same" and row["model_calls"] == 0
    assert row["attempts"] >= 1 and row["seconds"] >= row["heal_seconds"] > 0
    assert report["summary"]["fixed"] == 1 and report["summary"]["tokens"] == 0


def test_ranks_mode_runs_no_tests(capsys):
    assert main(["bench", "--ranks", "--only", "clamp", "power"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("reference found for 2/2")


def test_bad_suite_arguments_are_one_line_errors(capsys):
    assert main(["bench", "--suite", "quixbugs"]) == 2
    assert "needs --quixbugs-dir" in capsys.readouterr().err
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
