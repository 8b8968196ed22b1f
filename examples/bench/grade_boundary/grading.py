def letter(score):
    """A for 90 and above, B for above 80, C otherwise."""
    if score > 90:
        return "A"
    if score > 80:
        return "B"
    return "C"
