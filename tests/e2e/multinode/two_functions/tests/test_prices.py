from prices import total


def test_total_counts_quantities():
    assert total([{"cents": 250, "qty": 2}, {"cents": 100, "qty": 1}]) == 6.0


def test_free_items_cost_nothing():  # a guard: passes before and after, runs both functions
    assert total([{"cents": 0, "qty": 3}]) == 0
