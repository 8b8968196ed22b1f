"""Do two impact maps of the same project hold the same rows? (issue 22: a faster fill must not
change what the map holds)

    python benchmarks/compare_maps.py BEFORE.sqlite AFTER.sqlite

Compares, by name (the ids are each map's own): the rows (test node id, function path and
qualname, its blocks), the functions (fingerprint, first line, layout, last line) and the tests
(outcome, traced, stale, blocks kept); a test's duration is the run's, not compared. Rows of a
test whose outcome differs (a timeout under load, a flaky test) are counted apart: the run was
not the same there. Exits 0 when every row of the tests with the same outcome is the same.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections import Counter

Row = tuple[str, str, str, str]  # test nodeid, function path, qualname, blocks


def read(path: str) -> tuple[set[Row], dict[tuple[str, str], tuple], dict[str, tuple]]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = set(
        db.execute(
            "SELECT t.nodeid, f.path, f.qualname, r.blocks FROM runs r "
            "JOIN tests t ON t.id = r.test JOIN functions f ON f.id = r.function"
        )
    )
    functions = {
        (path, qualname): rest
        for path, qualname, *rest in db.execute(
            "SELECT path, qualname, fingerprint, line, layout, last, also FROM functions"
        )
    }
    tests = {
        nodeid: tuple(rest)
        for nodeid, *rest in db.execute(
            "SELECT nodeid, outcome, traced, stale, blocks, file_fingerprint FROM tests"
        )
    }
    db.close()
    return rows, functions, tests


def compare(before: str, after: str) -> int:
    rows_a, functions_a, tests_a = read(before)
    rows_b, functions_b, tests_b = read(after)
    print(f"before: {len(rows_a):,} rows, {len(functions_a):,} functions, {len(tests_a):,} tests")
    print(f"after:  {len(rows_b):,} rows, {len(functions_b):,} functions, {len(tests_b):,} tests")
    outcome = {
        nodeid
        for nodeid in tests_a.keys() | tests_b.keys()
        if tests_a.get(nodeid) != tests_b.get(nodeid)
    }
    outcomes = Counter((tests_a.get(n, ("-",))[0], tests_b.get(n, ("-",))[0]) for n in outcome)
    print(f"tests whose record differs: {len(outcome)} {dict(outcomes)}")
    differ = rows_a ^ rows_b
    apart = {row for row in differ if row[0] in outcome}
    same_run = differ - apart
    print(
        f"rows that differ: {len(differ)} ({len(apart)} of the tests above, {len(same_run)} of others)"
    )
    for row in sorted(same_run)[:20]:
        print(f"  {'before' if row in rows_a else 'after '} only: {row}")
    shared = functions_a.keys() & functions_b.keys()
    changed = [key for key in shared if functions_a[key] != functions_b[key]]
    only = len(functions_a.keys() ^ functions_b.keys())
    print(f"functions that differ: {len(changed)} changed, {only} in one map only")
    return 0 if not same_run and not changed else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    args = parser.parse_args()
    sys.exit(compare(args.before, args.after))


if __name__ == "__main__":
    main()
