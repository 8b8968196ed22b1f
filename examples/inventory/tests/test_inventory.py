import pytest

from shop.inventory import Inventory


def test_add_counts_up():
    inv = Inventory()
    inv.add("apple", 2)
    inv.add("apple")
    assert inv.count("apple") == 3


def test_remove_some():
    inv = Inventory()
    inv.add("apple", 5)
    inv.remove("apple", 2)
    assert inv.count("apple") == 3


def test_remove_too_many():
    inv = Inventory()
    inv.add("apple", 1)
    with pytest.raises(ValueError):
        inv.remove("apple", 2)


def test_remove_all():
    inv = Inventory()
    inv.add("pear", 2)
    inv.remove("pear")
    inv.remove("pear")
    assert "pear" not in inv
