"""The impact map: which tests run which functions, per project, invalidated per function.

`store.ImpactMap` is the API (open, sync, record, tests_running, known, stats); `feed` records
every run heal-ls makes on the original code; the rest are its parts (fingerprints, schema,
invalidate, record).
"""

from heal_ls.impact.store import Function, ImpactMap, MappedTest, MapStats

__all__ = ["Function", "ImpactMap", "MapStats", "MappedTest"]
