import pytest

from inventory import Inventory


def test_add():
    inv = Inventory()
    inv.add("apple", 5)
    assert inv.items == {"apple": 5}


def test_add_twice():
    inv = Inventory()
    inv.add("pear")
    inv.add("pear")
    assert inv.items["pear"] == 2


def test_remove():
    inv = Inventory()
    inv.add("apple", 5)
    inv.remove("apple", 2)
    assert inv.items["apple"] == 3


def test_remove_too_many():
    inv = Inventory()
    with pytest.raises(ValueError):
        inv.remove("pear")
