"""Prices for a small shop's basket."""


def subtotal(prices):
    """
    >>> subtotal([1, 2, 3])
    6
    """
    return sum(prices)


def shipping(total):
    """Shipping is free from 50 up, 5 below.

    >>> shipping(49.99)
    5
    >>> shipping(50)
    0
    """
    return 0 if total > 50 else 5
