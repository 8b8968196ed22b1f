from dupes import has_duplicates

def test_dupe():
    assert has_duplicates([1, 2, 1])

def test_unique():
    assert not has_duplicates([1, 2, 3])
