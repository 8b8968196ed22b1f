import asyncio

from fetching import fetch_total

def test_total():
    assert asyncio.run(fetch_total([1, 2, 3])) == 6
