"""The shop's stock, loaded from a text of `name count` lines."""


def load(text):
    stock = {}
    for line in text.splitlines():
        name, count = line.split()
        stock[name] = int(count)
    return stock
