"""Reference fix. target: ages.py::is_valid_age"""

def is_valid_age(age):
    """True for a plausible human age in years."""
    return age >= 0 and age <= 130
