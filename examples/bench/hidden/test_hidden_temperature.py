from temperature import Converter


def test_other_temperatures():
    assert Converter.to_fahrenheit(-40) == -40
    assert abs(Converter.to_fahrenheit(37) - 98.6) < 1e-9
    assert Converter().to_fahrenheit(10) == 50
