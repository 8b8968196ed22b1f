from middle import median


def test_even_count():
    assert median([4, 1, 3, 2]) == 2.5
    assert median([10, 20, 30, 40, 50, 60]) == 35


def test_odd_count():
    assert median([3, 1, 2]) == 2
    assert median([5, 3, 9, 1, 7]) == 5
