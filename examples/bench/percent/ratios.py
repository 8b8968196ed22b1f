def ratio(a, b):
    return a / b


def percent(part, whole):
    """part as a percentage of whole."""
    return ratio(whole, part) * 100
