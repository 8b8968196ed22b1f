from weather.temperature import Temperature


def test_from_fahrenheit():
    assert Temperature.from_fahrenheit(212).celsius == 100


def test_repr():
    assert repr(Temperature(3)) == "Temperature(3)"


def test_boiling_in_fahrenheit():
    assert Temperature(100).fahrenheit == 212


def test_warmer_is_more_fahrenheit():
    assert Temperature(10).fahrenheit < Temperature(20).fahrenheit
