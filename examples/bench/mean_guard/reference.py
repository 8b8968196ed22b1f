"""Reference fix. target: stats.py::mean"""

def mean(xs):
    """Arithmetic mean; 0 for no data."""
    if not xs:
        return 0
    return sum(xs) / len(xs)
