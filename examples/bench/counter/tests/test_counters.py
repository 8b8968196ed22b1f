from counters import make_counter

def test_counts_up():
    tick = make_counter()
    assert [tick(), tick(), tick()] == [1, 2, 3]
