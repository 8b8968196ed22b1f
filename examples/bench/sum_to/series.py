def sum_to(n):
    """Sum of 1..n inclusive."""
    total = 0
    for i in range(n):
        total += i
    return total
