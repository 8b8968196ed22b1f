from dupes import has_duplicates


def test_adjacent_and_late_duplicates():
    assert has_duplicates(["a", "a"])
    assert has_duplicates([1, 2, 3, 4, 4])


def test_empty_and_single():
    assert not has_duplicates([])
    assert not has_duplicates([9])
