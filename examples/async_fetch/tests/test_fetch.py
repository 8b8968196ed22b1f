import asyncio

from pager.fetch import count_words, fetch_all


def test_count_words():
    assert count_words(["a b", "c"]) == 3


def test_fetch_nothing():
    assert asyncio.run(fetch_all([])) == []


def test_fetch_all_pages():
    pages = ["one", "two", "three"]
    assert asyncio.run(fetch_all(pages)) == pages
