from lookup.search import contains, insertion_point


def test_empty():
    assert insertion_point([], 5) == 0


def test_before_everything():
    assert insertion_point([3, 4, 5], 1) == 0


def test_contains_missing_big():
    assert not contains([1, 3, 5], 9)
