from inventory import Inventory


def test_remove_all_but_one():
    inv = Inventory()
    inv.add("fig", 10)
    inv.remove("fig", 9)
    assert inv.items["fig"] == 1


def test_remove_default_one_twice():
    inv = Inventory()
    inv.add("kiwi", 3)
    inv.remove("kiwi")
    inv.remove("kiwi")
    assert inv.items["kiwi"] == 1
