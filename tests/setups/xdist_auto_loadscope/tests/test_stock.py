from basket.stock import restock, take


def test_restock():
    assert restock({"pear": 1}, "pear", 2) == {"pear": 3}


def test_take_some():
    assert take({"pear": 3}, "pear") == {"pear": 2}


def test_take_last_drops_item():
    assert "pear" not in take({"pear": 1}, "pear")
