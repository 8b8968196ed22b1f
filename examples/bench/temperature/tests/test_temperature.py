from temperature import Converter

def test_freezing():
    assert Converter.to_fahrenheit(0) == 32

def test_boiling():
    assert Converter.to_fahrenheit(100) == 212
