from users import active_names


def test_keeps_order_and_drops_inactive():
    users = [
        {"name": "cy", "active": True},
        {"name": "di", "active": False},
        {"name": "ed", "active": True},
    ]
    assert active_names(users) == ["cy", "ed"]


def test_all_inactive():
    assert active_names([{"name": "fay", "active": False}]) == []
