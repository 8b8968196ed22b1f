from counting import word_counts

def test_counts():
    assert word_counts("a b a") == {"a": 2, "b": 1}

def test_empty():
    assert word_counts("") == {}
