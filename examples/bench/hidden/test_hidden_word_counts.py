from counting import word_counts


def test_single_words_count_once():
    assert word_counts("one") == {"one": 1}
    assert word_counts("x y z x x") == {"x": 3, "y": 1, "z": 1}


def test_any_blanks_separate():
    assert word_counts("a\tb\na") == {"a": 2, "b": 1}
