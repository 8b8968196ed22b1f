"""Order totals in euros."""


def unit_price(item):
    return item["cents"] / 10


def total(items):
    return sum(unit_price(item) for item in items)
