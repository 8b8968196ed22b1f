from seqs import last

def test_last():
    assert last([1, 2, 3]) == 3

def test_single():
    assert last("a") == "a"

def test_empty():
    assert last([]) is None
