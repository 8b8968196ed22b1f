from powers import power

def test_cube():
    assert power(2, 3) == 8

def test_zero():
    assert power(5, 0) == 1
