from search import find_index

def test_found():
    assert find_index(["a", "b", "c"], "c") == 2

def test_missing():
    assert find_index([1, 2], 9) == -1
