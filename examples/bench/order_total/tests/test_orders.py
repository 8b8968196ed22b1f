from orders import order_total


def test_total_with_shipping():
    assert order_total([{"price": 2.0, "qty": 3}, {"price": 1.5, "qty": 2}], shipping=4.0) == 13.0


def test_empty_order_costs_shipping():
    assert order_total([], shipping=4.0) == 4.0
