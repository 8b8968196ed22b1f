from names import greeting, initials


def test_initials():
    assert initials("ada  lovelace") == "A.L."


def test_greeting():
    assert greeting("Ada") == "Hello, Ada!"


def test_initials_of_a_capitalised_name():  # a guard of initials: passes before and after
    assert initials("Ada Lovelace") == "A.L."
