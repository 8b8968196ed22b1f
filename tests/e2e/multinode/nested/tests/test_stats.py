from stats import running_mean


def test_running_mean():
    assert running_mean([2, 4, 6]) == [2.0, 3.0, 4.0]


def test_zeros_stay_zero():  # a guard of running_mean: passes before and after
    assert running_mean([0, 0]) == [0, 0]
