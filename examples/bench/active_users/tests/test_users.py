from users import active_names

def test_filter():
    users = [{"name": "ann", "active": True}, {"name": "bob", "active": False}]
    assert active_names(users) == ["ann"]

def test_none():
    assert active_names([]) == []
