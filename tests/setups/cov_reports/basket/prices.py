"""Prices for a small shop's basket."""


def subtotal(prices):
    return sum(prices)


def discount(total, percent):
    """`percent` off `total`, rounded to cents."""
    return round(total * (1 - percent / 100), 2)


def shipping(total):
    """Shipping is free from 50 up, 5 below."""
    return 0 if total > 50 else 5


def to_pay(prices, percent=0):
    total = discount(subtotal(prices), percent)
    return total + shipping(total)
