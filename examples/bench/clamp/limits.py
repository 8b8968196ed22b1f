def clamp(x, lo, hi):
    """x limited to the closed range [lo, hi]."""
    return max(lo, max(x, hi))
