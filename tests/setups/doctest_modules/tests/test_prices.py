from basket.prices import shipping, subtotal


def test_subtotal():
    assert subtotal([1, 2]) == 3


def test_shipping_below_50():
    assert shipping(10) == 5
