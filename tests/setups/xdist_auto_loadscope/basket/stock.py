"""What is left on the shelf."""


def restock(shelf, name, count):
    shelf[name] = shelf.get(name, 0) + count
    return shelf


def take(shelf, name, count=1):
    """Take `count` of `name`; an item with none left is dropped from the shelf."""
    left = shelf[name] - count
    if left < 0:
        raise ValueError(f"only {shelf[name]} {name} left")
    shelf[name] = left
    return shelf
