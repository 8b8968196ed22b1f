def is_valid_age(age):
    """True for a plausible human age in years."""
    return age >= 0 or age <= 130
