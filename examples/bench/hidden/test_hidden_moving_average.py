from windows import moving_average


def test_window_of_three():
    assert moving_average([3, 6, 9, 12], 3) == [6.0, 9.0]


def test_window_of_one():
    assert moving_average([1, 2, 3], 1) == [1.0, 2.0, 3.0]
