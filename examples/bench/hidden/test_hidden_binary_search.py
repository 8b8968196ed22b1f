from bsearch import binary_search


def test_every_item_of_an_even_list():
    xs = [2, 4, 6, 8, 10, 12]
    assert [binary_search(xs, x) for x in xs] == list(range(6))


def test_absent_values():
    xs = [2, 4, 6, 8]
    assert [binary_search(xs, x) for x in (1, 5, 9)] == [-1, -1, -1]
    assert binary_search([], 3) == -1
