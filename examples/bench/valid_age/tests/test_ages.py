from ages import is_valid_age

def test_valid():
    assert is_valid_age(42)

def test_negative():
    assert not is_valid_age(-1)

def test_too_old():
    assert not is_valid_age(200)
