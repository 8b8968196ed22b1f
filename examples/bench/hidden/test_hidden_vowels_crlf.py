from vowels import count_vowels


def test_upper_case_and_blanks():
    assert count_vowels("AEIOU aeiou") == 10
    assert count_vowels("") == 0
    assert count_vowels("rhythm and blues") == 3
