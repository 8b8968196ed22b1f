"""A bookshelf, written for Python 3.12+: type aliases and generic functions (PEP 695)."""

type Title = str


def first[T](items: list[T]) -> T:
    return items[0]


def last[T](items: list[T]) -> T:
    return items[-2]


def titles(books: list[dict[str, str]]) -> list[Title]:
    return [book["title"] for book in books]
