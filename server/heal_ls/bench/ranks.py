"""Where does the reference fix come in the local repairer's order? No test runs, just ranking.

`heal-ls bench --ranks` prints this per bug: a cheap way to see if a change to the ranking helps.
"""

from __future__ import annotations

import ast
import itertools

from heal_ls.bench.reference import find_function, function_text, same_function
from heal_ls.bench.suites import BenchCase
from heal_ls.pysource.parse import first_line
from heal_ls.repair.local import LocalRepairer


def rank_of_reference(case: BenchCase, limit: int = 3000) -> int | None:
    """0-based position of the first candidate equal (normalised AST) to the reference."""
    with open(case.target, encoding="utf-8", newline="") as handle:
        module = handle.read()
    node = find_function(ast.parse(module), case.qualname)
    if node is None:
        return None
    first = first_line(node)
    lines = module.splitlines(keepends=True)[first - 1 : node.end_lineno]
    source = "".join(lines)
    candidates = LocalRepairer().candidates(source, [], first)
    for index, candidate in enumerate(itertools.islice(candidates, limit)):
        if same_function(candidate, case.reference_source):
            return index
    return None


def rank_lines(cases: list[BenchCase], limit: int = 3000) -> list[str]:
    lines, found = [], []
    for case in cases:
        rank = rank_of_reference(case, limit)
        found.append(rank)
        lines.append(f"{case.name:24} {'-' if rank is None else rank + 1}")
    hits = sorted(r + 1 for r in found if r is not None)
    median = hits[len(hits) // 2] if hits else "-"
    lines.append(
        f"reference found for {len(hits)}/{len(cases)} within {limit}; median rank {median}"
    )
    return lines


__all__ = ["function_text", "rank_lines", "rank_of_reference"]
