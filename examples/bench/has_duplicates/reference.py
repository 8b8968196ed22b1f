"""Reference fix. target: dupes.py::has_duplicates"""

def has_duplicates(xs):
    """True when some item occurs twice."""
    seen = set()
    for x in xs:
        if x in seen:
            return True
        seen.add(x)
    return False
