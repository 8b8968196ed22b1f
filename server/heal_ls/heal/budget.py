"""The budget meter: tokens in/out of a heal and its estimated cost.

Prices (USD per million tokens) live in one data file, prices.json, keyed by model name; the
longest listed prefix of the model's name applies, and `overrides` (heal.prices, or the JSON
file named by HEAL_LS_PRICES for the CLI) win. An unknown model has no cost: tokens only.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from heal_ls.payload import from_object

PRICES = Path(__file__).with_name("prices.json")


Prices = dict[str, dict[str, float]]  # model name (or prefix) -> {"input", "output"}: USD per 1M


def price_table(overrides: Prices | None = None) -> Prices:
    listed = json.loads(PRICES.read_text())
    table = from_object(Prices, {k: v for k, v in listed.items() if not k.startswith("_")})
    path = os.environ.get("HEAL_LS_PRICES")
    if path:
        try:
            table.update(from_object(Prices, json.loads(Path(path).read_text())))
        except (OSError, ValueError):  # PayloadError too: a price that is no number
            pass  # a broken override file must not stop a heal: built-in prices stay
    table.update(overrides or {})
    return table


def price_of(model: str | None, overrides: Prices | None = None) -> dict[str, float] | None:
    if not model:
        return None
    table = price_table(overrides)
    names = [name for name in table if model == name or model.startswith(name)]
    return table[max(names, key=len)] if names else None


@dataclass
class Usage:
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None  # USD, None when the model's price is unknown

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out

    def text(self) -> str:
        """`1,200 in / 340 out tokens, ~$0.0087` (no cost part when unknown)."""
        line = f"{self.tokens_in:,} in / {self.tokens_out:,} out tokens"
        return line if self.cost is None else f"{line}, ~${self.cost:.4f}"


def usage(
    model: str | None, tokens_in: int, tokens_out: int, overrides: Prices | None = None
) -> Usage:
    price = price_of(model, overrides)
    cost = None
    if price is not None:
        cost = (tokens_in * price.get("input", 0) + tokens_out * price.get("output", 0)) / 1e6
    return Usage(tokens_in, tokens_out, cost)
