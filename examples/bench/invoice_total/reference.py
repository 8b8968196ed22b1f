"""Reference fix. target: invoice.py::invoice_total"""

def invoice_total(lines):
    """Sum of quantity * unit price over (quantity, price) lines."""
    total = 0
    for qty, price in lines:
        total += qty * price
    return total
