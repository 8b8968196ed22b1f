from pricing import discounted


def test_other_rates():
    assert discounted(80, 0.5) == 40.0
    assert discounted(19.99, 0.1) == 17.99


def test_full_discount_is_free():
    assert discounted(30, 1) == 0
