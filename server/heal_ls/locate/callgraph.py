"""The static call graph among the functions a failing test ran: how many calls away from the
failing line's own calls each one is (names resolved as the failing line's are, by position
in the source, never by running anything)."""

from __future__ import annotations

import ast
import os
from collections import defaultdict

from heal_ls.locate.cached import called_in
from heal_ls.locate.calls import matches
from heal_ls.locate.index import FunctionNode, ModuleIndex
from heal_ls.locate.operators import operator_calls
from heal_ls.pysource.parse import name_of

Place = tuple[str, FunctionNode]
Key = tuple[str, int]  # the Ranker's key: (normalised path, first line)


def call_distances(
    sources: list[Place], pool: list[Place], index_of, names_of=called_in
) -> dict[Key, int]:
    """Calls from `sources` (0) to each function of `pool` their bodies reach by name through
    functions of `pool` (breadth first); a function none of them reaches is left out.
    `names_of(index, node)`: the names a body calls (`called_in`, or `names_reached`)."""
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
            for name in names_of(index, node) if index is not None else []:
                for callee in by_name.get(name, []):
                    if key_of(*callee) not in distance and matches(name, callee[1]):
                        distance[key_of(*callee)] = hops
                        reached.append(callee)
        frontier = reached
    return distance


def names_reached(index: ModuleIndex, node: FunctionNode) -> list[str]:
    """Every name `node`'s body may run, a wider net than `called_in`: its calls, the dunders
    its operators call, and every name and attribute it reads (a property runs when read)."""
    found = index.def_node(node.def_line)
    if found is None:
        return []
    names = called_in(index, node) + [call.dunder for call in operator_calls([found])]
    names += [name for n in ast.walk(found) if (name := name_of(n))]
    return list(dict.fromkeys(names))


def key_of(path: str, node: FunctionNode) -> Key:
    return os.path.normcase(os.path.abspath(path)), node.start_line
