from bsearch import binary_search

def test_each():
    xs = [1, 3, 5, 7, 9]
    for i, x in enumerate(xs):
        assert binary_search(xs, x) == i

def test_missing():
    assert binary_search([1, 3], 2) == -1

def test_single():
    assert binary_search([4], 4) == 0
