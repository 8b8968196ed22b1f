from basket.prices import shipping, subtotal


def test_subtotal():
    assert subtotal([1, 2, 3]) == 6


def test_free_shipping_from_50():
    assert shipping(50) == 0


def test_pears(stock):
    assert stock["pear"] == 2


def test_apples(stock):
    assert stock["apple"] == 3
