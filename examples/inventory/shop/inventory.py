"""A corner shop's stock: how many of each item are on the shelf."""


class Inventory:
    def __init__(self):
        self.items = {}

    def add(self, name, count=1):
        self.items[name] = self.items.get(name, 0) + count

    def remove(self, name, count=1):
        """Take `count` items off the shelf; forget the name once none are left."""
        have = self.items[name]
        if count > have:
            raise ValueError(f"only {have} {name!r} left")
        self.items[name] = have - count
        if self.items[name] <= 1:
            del self.items[name]

    def __contains__(self, name):
        return name in self.items

    def count(self, name):
        return self.items.get(name, 0)
