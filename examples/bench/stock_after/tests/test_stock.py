from stock import stock_after

def test_normal():
    assert stock_after(10, 3) == 7

def test_oversold():
    assert stock_after(2, 5) == 0
