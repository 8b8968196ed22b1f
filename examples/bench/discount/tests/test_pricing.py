from pricing import discounted

def test_quarter_off():
    assert discounted(100, 0.25) == 75.0

def test_no_discount():
    assert discounted(10, 0) == 10
