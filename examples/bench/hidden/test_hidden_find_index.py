from search import find_index


def test_first_of_equal_items():
    assert find_index([5, 7, 5], 5) == 0
    assert find_index(["x", "y", "y"], "y") == 1


def test_numbers_are_not_their_index():
    assert find_index([10, 20, 30], 30) == 2
    assert find_index([], 1) == -1
