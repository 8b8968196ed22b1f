def moving_average(xs, k):
    """Averages of every window of k consecutive items."""
    out = []
    for i in range(len(xs) - k):
        out.append(sum(xs[i:i + k]) / k)
    return out
