"""Reference fix. target: powers.py::power"""

def power(base, exp):
    """base ** exp for a non-negative integer exp, by recursion."""
    if exp == 0:
        return 1
    return base * power(base, exp - 1)
