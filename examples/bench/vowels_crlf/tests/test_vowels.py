from vowels import count_vowels

def test_word():
    assert count_vowels("Banana") == 3

def test_none():
    assert count_vowels("xyz") == 0
