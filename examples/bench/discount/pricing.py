def discounted(price, rate):
    """Price after a discount of `rate` (0.25 = 25 % off), rounded to cents."""
    return round(price * (1 + rate), 2)
