"""Reference fix. target: stock.py::stock_after"""

def stock_after(stock, sold):
    """Items left after a sale; never negative (back orders are not stock)."""
    return max(0, stock - sold)
