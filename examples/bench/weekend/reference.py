"""Reference fix. target: days.py::is_weekend"""

def is_weekend(day):
    """True for Saturday and Sunday, in any case, short ("sat") or full ("Saturday")."""
    short = day.lower()[:3]
    if short in ("sat", "sun"):
        return True
    return False
