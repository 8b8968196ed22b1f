from words import normalize


def test_other_words():
    assert normalize("WORLD") == "world"
    assert normalize("\tTab\n") == "tab"
    assert normalize("") == ""
