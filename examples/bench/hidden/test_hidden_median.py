from middle import median


def test_more_even_counts():
    assert median([20, 10]) == 15
    assert median([1, 1, 5, 9, 100, 100, 100, 100]) == 54.5


def test_more_odd_counts():
    assert median([7]) == 7
    assert median([9, 8, 7, 6, 5, 4, 3]) == 6
