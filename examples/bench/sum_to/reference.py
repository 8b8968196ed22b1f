"""Reference fix. target: series.py::sum_to"""

def sum_to(n):
    """Sum of 1..n inclusive."""
    total = 0
    for i in range(n + 1):
        total += i
    return total
