"""Reference fix (two functions). target: orders.py::order_total"""

def line_total(line):
    """Price of one order line: unit price times quantity."""
    return line["price"] * line["qty"]


def order_total(lines, shipping=0.0):
    """Sum of the lines plus shipping."""
    return sum(line_total(line) for line in lines) + shipping
