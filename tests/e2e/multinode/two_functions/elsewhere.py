def rounded(value):
    return round(value, 2)
