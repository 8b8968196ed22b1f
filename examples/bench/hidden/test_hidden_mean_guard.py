from stats import mean


def test_other_means():
    assert mean([4]) == 4
    assert mean([1, 2]) == 1.5


def test_empty_tuple():
    assert mean(()) == 0
