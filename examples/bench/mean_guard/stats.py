def mean(xs):
    """Arithmetic mean; 0 for no data."""
    return sum(xs) / len(xs)
