from fractions import Fraction

from fractions_stats import exact_mean


def test_sevenths():
    assert exact_mean([1, 0, 0, 0, 0, 0, 0]) == Fraction(1, 7)


def test_whole_mean_is_still_exact():
    result = exact_mean([3, 5])
    assert result == 4 and isinstance(result, Fraction)


def test_negative_values():
    assert exact_mean([-1, -2]) == Fraction(-3, 2)
