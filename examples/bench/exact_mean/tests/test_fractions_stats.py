from fractions import Fraction

from fractions_stats import exact_mean


def test_thirds_are_exact():
    assert exact_mean([0, 0, 1]) == Fraction(1, 3)


def test_result_is_a_fraction():
    assert isinstance(exact_mean([2, 4]), Fraction)
