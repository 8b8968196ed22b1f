"""Reference fix. target: windows.py::moving_average"""

def moving_average(xs, k):
    """Averages of every window of k consecutive items."""
    out = []
    for i in range(len(xs) - k + 1):
        out.append(sum(xs[i:i + k]) / k)
    return out
