"""Binary search over a sorted list."""


def insertion_point(items, target):
    """The first index where `target` could go and keep `items` sorted."""
    lo, hi = 0, len(items)
    while lo < hi:
        mid = (lo + hi) // 2
        if items[mid] < target:
            lo = mid
        else:
            hi = mid
    return lo


def contains(items, target):
    index = insertion_point(items, target)
    return index < len(items) and items[index] == target
