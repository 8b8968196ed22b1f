from days import is_weekend


def test_saturday():
    assert is_weekend("Saturday")


def test_weekdays():
    assert not is_weekend("Monday")
    assert not is_weekend("fri")
