"""Prices for a small shop's basket, with thresholds from the configured settings module."""

import importlib
import os


def settings():
    return importlib.import_module(os.environ["BASKET_SETTINGS"])


def subtotal(prices):
    return sum(prices)


def shipping(total):
    """Shipping is free from FREE_SHIPPING_FROM up, SHIPPING below."""
    conf = settings()
    return 0 if total > conf.FREE_SHIPPING_FROM else conf.SHIPPING


def to_pay(prices):
    total = subtotal(prices)
    return total + shipping(total)
