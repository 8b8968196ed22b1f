"""The impact map: which tests run which functions, per project, invalidated per function.

`store.ImpactMap` is the API (open, sync, record, tests_running, known, stats); `feed` records
every run heal-ls makes on the original code; the rest are its parts (fingerprints, schema,
invalidate, record). Nothing is imported here: `heal-ls check` spawns its tests with none of
it loaded (testing/head_start.py; the cache folder is heal_ls/cache_folder.py).
"""
