"""Distances."""

from typing import Optional, List
import math


def longest(points: List[tuple]) -> Optional[float]:
    """The largest distance from the origin, or None without points."""
    if not points:
        return None
    return max(math.hypot(x, y) for x, y in points)
