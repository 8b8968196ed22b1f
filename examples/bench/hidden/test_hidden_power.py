from powers import power


def test_other_powers():
    assert power(3, 4) == 81
    assert power(10, 1) == 10
    assert power(0, 0) == 1
