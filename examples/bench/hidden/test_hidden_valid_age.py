from ages import is_valid_age


def test_bounds_are_valid():
    assert is_valid_age(0)
    assert is_valid_age(130)


def test_just_outside():
    assert not is_valid_age(131)
    assert not is_valid_age(-100)
