def power(base, exp):
    """base ** exp for a non-negative integer exp, by recursion."""
    return base * power(base, exp - 1)
