def last(xs):
    """The last item, or None for an empty sequence."""
    if not xs:
        return None
    return xs[len(xs)]
