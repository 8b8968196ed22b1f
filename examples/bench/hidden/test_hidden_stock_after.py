from stock import stock_after


def test_sell_everything():
    assert stock_after(4, 4) == 0


def test_other_sales():
    assert stock_after(0, 1) == 0
    assert stock_after(100, 1) == 99
    assert stock_after(3, 300) == 0
