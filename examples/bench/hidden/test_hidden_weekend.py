from days import is_weekend


def test_sunday_in_any_form():
    assert is_weekend("sun") and is_weekend("SUNDAY") and is_weekend("Sat")


def test_every_weekday():
    assert not any(is_weekend(d) for d in ("mon", "Tuesday", "wed", "THU", "friday"))
