"""Exact Python source text, the bottom floor: reading, parsing, walking and splicing modules."""
