class Inventory:
    """Item counts by name."""

    def __init__(self):
        self.items = {}

    def add(self, name, count=1):
        self.items[name] = self.items.get(name, 0) + count

    def remove(self, name, count=1):
        have = self.items.get(name, 0)
        if count > have:
            raise ValueError(f"only {have} {name} left")
        self.items[name] = count - have
