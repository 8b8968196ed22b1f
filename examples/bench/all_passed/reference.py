"""Reference fix. target: grades.py::all_passed"""

def all_passed(scores, threshold=50):
    """True when every score reaches the threshold."""
    return all(s >= threshold for s in scores)
