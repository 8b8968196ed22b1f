"""Candidate edits of one function: small program transformations, ranked, generated lazily.

`mutants(source, focus)` yields whole edited def sources; see search.py for the order.
"""

from heal_ls.repair.search import mutants, normalised

__all__ = ["mutants", "normalised"]
