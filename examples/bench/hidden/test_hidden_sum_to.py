from series import sum_to


def test_other_sums():
    assert sum_to(1) == 1
    assert sum_to(4) == 10
    assert sum_to(100) == 5050
