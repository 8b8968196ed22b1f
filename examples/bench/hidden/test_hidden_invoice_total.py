from invoice import invoice_total


def test_price_differs_from_quantity():
    assert invoice_total([(3, 10)]) == 30
    assert invoice_total([(1, 2.5), (4, 0.5)]) == 4.5
