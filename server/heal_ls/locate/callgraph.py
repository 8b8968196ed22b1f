"""The static call graph among the functions a failing test ran: how many calls away from the
failing line's own calls each one is (names resolved as the failing line's are, by position
in the source, never by running anything)."""

from __future__ import annotations

import os
from collections import defaultdict

from heal_ls.locate.cached import called_in
from heal_ls.locate.calls import matches
from heal_ls.locate.index import FunctionNode

Place = tuple[str, FunctionNode]
Key = tuple[str, int]  # the Ranker's key: (normalised path, first line)


def call_distances(sources: list[Place], pool: list[Place], index_of) -> dict[Key, int]:
    """Calls from `sources` (0) to each function of `pool` their bodies reach by name through
    functions of `pool` (breadth first); a function none of them reaches is left out."""
    by_name: dict[str, list[Place]] = defaultdict(list)
    for path, node in pool:
        by_name[node.name].append((path, node))
        if node.name == "__init__" and "." in node.qualname:  # `Shop(...)` runs Shop.__init__
            by_name[node.qualname.split(".")[-2]].append((path, node))
    distance = {key_of(p, n): 0 for p, n in sources}
    frontier, hops = list(sources), 0
    while frontier:
        hops += 1
        reached = []
        for path, node in frontier:
            index = index_of(path)
            for name in called_in(index, node) if index is not None else []:
                for callee in by_name.get(name, []):
                    if key_of(*callee) not in distance and matches(name, callee[1]):
                        distance[key_of(*callee)] = hops
                        reached.append(callee)
        frontier = reached
    return distance


def key_of(path: str, node: FunctionNode) -> Key:
    return os.path.normcase(os.path.abspath(path)), node.start_line
