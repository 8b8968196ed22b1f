from basket.prices import discount, shipping, subtotal, to_pay


def test_subtotal():
    assert subtotal([1, 2, 3]) == 6


def test_discount():
    assert discount(80, 25) == 60


def test_shipping_below_50():
    assert shipping(49.99) == 5


def test_free_shipping_from_50():
    assert shipping(50) == 0


def test_to_pay_adds_shipping():
    assert to_pay([10, 20]) == 35
