from stats import running_mean


def test_running_mean():
    assert running_mean([2, 4, 6]) == [2.0, 3.0, 4.0]
