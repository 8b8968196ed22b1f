"""Prices for a small shop's basket, in Python 3.8."""

from typing import Dict, List


def subtotal(prices: List[float]) -> float:
    return sum(prices)


def cheapest(stock: Dict[str, float]) -> str:
    return min(stock, key=stock.get)


def to_pay(prices: List[float]) -> float:
    if (total := subtotal(prices)) > 50:
        return total
    return total + 5
