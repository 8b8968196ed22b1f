from names import initials


def test_three_words_and_case():
    assert initials("grace brewster hopper") == "GBH"
    assert initials("Alan TURING") == "AT"


def test_extra_blanks():
    assert initials("  linus   torvalds ") == "LT"
