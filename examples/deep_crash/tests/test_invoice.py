from billing.invoice import invoice_total, line_total


def test_line_without_code():
    assert line_total({"price": 250, "qty": 2}) == 500


def test_empty_invoice():
    assert invoice_total([]) == 0


def test_invoice_with_code():
    lines = [
        {"price": 1000, "qty": 1, "code": "save10"},
        {"price": 300, "qty": 2},
    ]
    assert invoice_total(lines) == 900 + 600
