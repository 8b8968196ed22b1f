from invoice import invoice_total

def test_lines():
    assert invoice_total([(2, 5), (1, 3)]) == 13

def test_empty():
    assert invoice_total([]) == 0
