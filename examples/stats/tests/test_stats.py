from figures.stats import mean, median, spread


def test_median_odd():
    assert median([3, 1, 2]) == 2


def test_median_even():
    assert median([4, 1, 3, 2]) == 2.5


def test_spread():
    assert spread([4, 1, 3, 2]) == 3


def test_mean():
    assert mean([1, 2, 3, 4]) == 2.5


def test_mean_of_one():
    assert mean([5]) == 5
