import sys

from shelf.books import first, last, titles

BOOKS = [{"title": "Emma"}, {"title": "Ulysses"}, {"title": "Beloved"}]


def test_runs_on_3_13():
    assert sys.version_info[:2] == (3, 13)


def test_first():
    assert first(titles(BOOKS)) == "Emma"


def test_last():
    assert last(titles(BOOKS)) == "Beloved"


def test_titles():
    assert titles(BOOKS[:1]) == ["Emma"]
