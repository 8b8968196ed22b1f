from names import initials

def test_two_words():
    assert initials("ada lovelace") == "AL"

def test_one_letter():
    assert initials("x") == "X"
