"""Reference fix. target: ratios.py::percent"""

def percent(part, whole):
    """part as a percentage of whole."""
    return ratio(part, whole) * 100
