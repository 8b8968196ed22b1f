from seqs import last


def test_other_sequences():
    assert last((4, 5)) == 5
    assert last("hello") == "o"
    assert last([None, 0]) == 0


def test_empty_string():
    assert last("") is None
