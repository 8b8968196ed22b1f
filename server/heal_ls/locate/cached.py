"""Callees a cache kept from running: `self._memo.get(key) or self._build(key)` runs `_build`
only the first time. In a run of a whole file an earlier passing test may have made the value
the failing test then read back, so the function that made it never ran in the failing test.
Such a callee is still a suspect, after every function that did run."""

from __future__ import annotations

import ast

from heal_ls.locate.calls import call_names, matches
from heal_ls.locate.index import FunctionNode, ModuleIndex
from heal_ls.models import Failure, RunResult


def skipped_callees(
    failure: Failure, run: RunResult | None, covered: list[tuple[str, FunctionNode]], index_of
) -> list[tuple[str, FunctionNode, str]]:
    """(path, def, caller name) for each def of the same module that a function the failing test
    ran calls by name, that did not run in the failing test but did in a passing one."""
    if run is None:
        return []
    ran = set(failure.covered)
    passed = {key for t in run.tests if t.outcome == "passed" for key in t.covered} - ran
    if not passed:
        return []
    found = []
    ran_elsewhere_in: dict[str, list[FunctionNode]] = {}
    for path, caller in covered:
        index: ModuleIndex | None = index_of(path)
        if index is None:
            continue
        # Only defs a passing test ran can qualify: most modules have none, so their callers'
        # bodies are never read.
        if path not in ran_elsewhere_in:
            functions = index.functions
            ran_elsewhere_in[path] = [f for f in functions if f"{path}:{f.start_line}" in passed]
        ran_elsewhere = ran_elsewhere_in[path]
        names = called_in(index, caller) if ran_elsewhere else []
        for node in ran_elsewhere if names else []:
            if any(matches(name, node) for name in names):
                found.append((path, node, caller.qualname))
    return found


def called_in(index: ModuleIndex, node: FunctionNode) -> list[str]:
    """The names `node`'s body calls (calls.call_names), read once an index (the index of a
    file's text is cached): the prefetch worker reads them for the functions a failing test
    ran while the tests still run, so the ranking after the run finds them read."""
    names = index.calls.get(node.def_line)
    if names is None:
        found = index.def_node(node.def_line)
        body: list[ast.AST] = [*found.body] if found is not None else []
        names = index.calls[node.def_line] = call_names(body) if body else []
    return names
