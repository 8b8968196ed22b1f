import asyncio

import pytest

from pager.fetch import count_words, fetch_all, fetch_page


def test_count_words():
    assert count_words(["a b", "c"]) == 3


def test_fetch_nothing():
    assert asyncio.run(fetch_all([])) == []


def test_fetch_all_pages():
    pages = ["one", "two", "three"]
    assert asyncio.run(fetch_all(pages)) == pages


def test_fetch_past_the_last_page():
    with pytest.raises(IndexError):
        asyncio.run(fetch_page(["one"], 2))
