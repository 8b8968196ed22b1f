def make_counter():
    """A function returning 1, 2, 3, ... on successive calls."""
    count = 0

    def increment():
        nonlocal count
        count += 2
        return count

    return increment
