"""Distances."""

from typing import List


def longest(points: List[tuple]):
    """The largest distance from the origin, or None without points."""
    return max(x * x + y * y for x, y in points)
