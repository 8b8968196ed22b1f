"""The budget meter in `heal-ls fix --json`: tokens in/out and the estimated cost from the price
table (tokens only for an unknown model), and --max-tokens stopping a heal cleanly."""

import json

import pytest
from heal_ls.heal.budget import price_of, usage
from helpers.cli import heal_ls, openai_env
from helpers.fakemodel import FakeModelServer
from helpers.fixes import example_fixes

pytestmark = pytest.mark.e2e

FIX = example_fixes()["inventory"]


def fix_json(root, server, *args) -> dict:
    proc = heal_ls(
        "fix", str(root), "--provider", "openai", "--json", "--no-cache", *args,
        env=openai_env(server),
    )  # fmt: skip
    return json.loads(proc.stdout)["results"][0]


@pytest.mark.parametrize("model", ["gpt-4o-mini", "mystery-model"])
def test_tokens_and_cost_per_heal(example_copy, model):
    root = example_copy("inventory")
    with FakeModelServer(functions={FIX.qualname: FIX.fixed_function(root)}) as server:
        row = fix_json(root, server, "--model", model)
    assert row["status"] == "verified" and row["model"] == model
    assert row["tokens_in"] > 0 and row["tokens_out"] > 0
    assert row["tokens"] == row["tokens_in"] + row["tokens_out"]
    assert (row["callers"], row["guards"]) == (4, 2)  # the blast radius of Inventory.remove
    if model == "gpt-4o-mini":  # $0.15 in / $0.60 out per million tokens (prices.json)
        expected = (row["tokens_in"] * 0.15 + row["tokens_out"] * 0.6) / 1e6
        assert row["cost"] == pytest.approx(expected, abs=1e-6)
    else:
        assert row["cost"] is None  # unknown price: tokens only


def test_max_tokens_stops_the_heal_cleanly(example_copy):
    root = example_copy("inventory")
    wrong = FIX.fixed_function(root).replace(FIX.fixed.strip(), FIX.buggy.strip())
    with FakeModelServer(functions={FIX.qualname: wrong}) as server:
        row = fix_json(root, server, "--max-tokens", "1", "--max-attempts", "3")
        asked = len(server.requests)
    assert asked == 1  # the first answer spent the budget: no second question
    assert row["status"] in ("failed", "unverified")
    assert "token budget reached" in row["reason"]


def test_prices_override_and_longest_prefix(tmp_path, monkeypatch):
    assert price_of("claude-sonnet-5-5-20990101") == {"input": 3.0, "output": 15.0}
    assert price_of("nobody-knows") is None
    own = tmp_path / "prices.json"
    own.write_text(json.dumps({"nobody-knows": {"input": 2, "output": 8}}))
    monkeypatch.setenv("HEAL_LS_PRICES", str(own))
    assert usage("nobody-knows", 1_000_000, 500_000).cost == pytest.approx(6.0)
    cheap = usage("nobody-knows", 1000, 1000, {"nobody-knows": {"input": 0, "output": 0}})
    assert cheap.cost == 0 and cheap.text() == "1,000 in / 1,000 out tokens, ~$0.0000"
