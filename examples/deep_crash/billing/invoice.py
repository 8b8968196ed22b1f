"""Invoice totals with discount codes."""

DISCOUNTS = {"SAVE10": 10, "HALF": 50}


def invoice_total(lines):
    """The sum of every line's total, in cents."""
    return sum(line_total(line) for line in lines)


def line_total(line):
    amount = line["price"] * line["qty"]
    return discounted(amount, line.get("code"))


def discounted(amount, code):
    """Apply a discount code (any letter case) to an amount in cents."""
    if code is None:
        return amount
    return amount * (100 - DISCOUNTS[code.lower()]) // 100
