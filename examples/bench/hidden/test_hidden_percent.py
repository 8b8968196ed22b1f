from ratios import percent


def test_quarter_and_more_than_whole():
    assert percent(1, 4) == 25
    assert percent(6, 3) == 200


def test_nothing():
    assert percent(0, 5) == 0
