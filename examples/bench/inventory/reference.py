"""Reference fix. target: inventory.py::Inventory.remove"""

def remove(self, name, count=1):
    have = self.items.get(name, 0)
    if count > have:
        raise ValueError(f"only {have} {name} left")
    self.items[name] = have - count
