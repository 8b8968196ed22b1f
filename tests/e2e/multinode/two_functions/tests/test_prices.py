from prices import total


def test_total_counts_quantities():
    assert total([{"cents": 250, "qty": 2}, {"cents": 100, "qty": 1}]) == 6.0
