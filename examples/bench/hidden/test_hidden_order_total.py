from orders import order_total


def test_free_shipping_by_default():
    assert order_total([{"price": 3.0, "qty": 4}]) == 12.0


def test_many_lines():
    lines = [{"price": 1.0, "qty": 1}, {"price": 2.0, "qty": 2}, {"price": 0.5, "qty": 10}]
    assert order_total(lines, shipping=1.0) == 11.0
