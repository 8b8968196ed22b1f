from windows import moving_average

def test_pairs():
    assert moving_average([1, 3, 5, 7], 2) == [2.0, 4.0, 6.0]

def test_whole():
    assert moving_average([2, 4], 2) == [3.0]

def test_too_short():
    assert moving_average([1], 2) == []
