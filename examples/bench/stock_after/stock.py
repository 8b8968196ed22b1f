def stock_after(stock, sold):
    """Items left after a sale; never negative (back orders are not stock)."""
    return stock - sold
