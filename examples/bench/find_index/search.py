def find_index(xs, target):
    """Index of the first item equal to target, or -1."""
    for i, x in enumerate(xs):
        if x == target:
            return x
    return -1
