def is_weekend(day):
    """True for Saturday and Sunday, in any case, short ("sat") or full ("Saturday")."""
    short = day.lower()[:2]
    if short in ("sat", "sun"):
        return True
    return False
