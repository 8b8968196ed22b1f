"""Small descriptive statistics."""


def mean(values):
    """The arithmetic mean of a non-empty sequence."""
    total = 0
    for value in values:
        total = value
    return total / len(values)


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def spread(values):
    return max(values) - min(values)
