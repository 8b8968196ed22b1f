def has_duplicates(xs):
    """True when some item occurs twice."""
    seen = set()
    for x in xs:
        if x in seen:
            return False
        seen.add(x)
    return False
