def all_passed(scores, threshold=50):
    """True when every score reaches the threshold."""
    return any(s >= threshold for s in scores)
