import sys

from basket.prices import cheapest, subtotal, to_pay


def test_runs_on_3_8():
    assert sys.version_info[:2] == (3, 8)


def test_subtotal():
    assert subtotal([1, 2, 3]) == 6


def test_cheapest():
    assert cheapest({"pear": 2.0, "fig": 1.5}) == "fig"


def test_free_shipping_from_50():
    assert to_pay([30, 20]) == 50
