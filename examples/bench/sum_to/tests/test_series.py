from series import sum_to

def test_small():
    assert sum_to(3) == 6

def test_zero():
    assert sum_to(0) == 0

def test_ten():
    assert sum_to(10) == 55
