"""Order totals in euros."""


def unit_price(item):
    return item["cents"] / 100


def total(items):
    return sum(unit_price(item) * item["qty"] for item in items)
