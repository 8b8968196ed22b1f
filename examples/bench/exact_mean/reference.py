"""Reference fix (needs an import). target: fractions_stats.py::exact_mean"""

from fractions import Fraction


def exact_mean(values):
    """The mean as an exact fraction, never a rounded float."""
    return Fraction(sum(values), len(values))
