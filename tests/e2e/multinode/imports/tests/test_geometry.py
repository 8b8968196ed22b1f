from geometry import longest


def test_longest():
    assert longest([(3, 4), (1, 1)]) == 5.0


def test_no_points():
    assert longest([]) is None


def test_one_unit_point():  # a guard of longest: passes before and after
    assert longest([(1, 0)]) == 1
