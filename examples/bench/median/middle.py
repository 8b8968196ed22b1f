def median(xs):
    """The middle value of xs; the mean of the two middle values for an even count."""
    s = sorted(xs)
    mid = len(s) // 2
    if len(s) % 2:
        return s[mid]
    return (s[mid] + s[mid + 1]) / 2
