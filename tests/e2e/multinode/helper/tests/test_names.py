from names import greeting, initials


def test_initials():
    assert initials("ada  lovelace") == "A.L."


def test_greeting():
    assert greeting("Ada") == "Hello, Ada!"
