"""heal/budget.py: the price table is read strictly; a broken override file (HEAL_LS_PRICES) is
left out, so the built-in prices stay and a heal's cost is still a number."""

import json

import pytest
from heal_ls.heal.budget import price_of, usage


@pytest.mark.parametrize(
    "override",
    [
        {"claude-sonnet": {"input": "3", "output": "15"}},  # strings: "3" * tokens was a string
        {"claude-sonnet": 3},
        ["claude-sonnet"],
        "not json",
    ],
)
def test_a_malformed_override_file_leaves_the_built_in_prices(tmp_path, monkeypatch, override):
    own = tmp_path / "prices.json"
    own.write_text(override if isinstance(override, str) else json.dumps(override))
    monkeypatch.setenv("HEAL_LS_PRICES", str(own))
    assert price_of("claude-sonnet-9") == {"input": 3.0, "output": 15.0}
    assert usage("claude-sonnet-9", 1_000_000, 0).cost == pytest.approx(3.0)
