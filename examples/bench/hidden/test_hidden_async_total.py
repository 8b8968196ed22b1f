import asyncio

from fetching import fetch_total


def test_single_value():
    assert asyncio.run(fetch_total([7])) == 7


def test_empty_and_negative():
    assert asyncio.run(fetch_total([])) == 0
    assert asyncio.run(fetch_total([-4, 1, 10])) == 7
