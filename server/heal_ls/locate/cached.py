"""Callees a cache kept from running: `self._memo.get(key) or self._build(key)` runs `_build`
only the first time. In a run of a whole file an earlier passing test may have made the value
the failing test then read back, so the function that made it never ran in the failing test.
Such a callee is still a suspect, after every function that did run; but one its caller keeps
in a memo (`self._made[key] = self._build(key)`) or a functools cache wraps (`@lru_cache`)
made the value the caller handed the failing test: `memoized` says so."""

from __future__ import annotations

import ast

from heal_ls.locate.blocks import block_of
from heal_ls.locate.calls import call_names, calls_among, matches
from heal_ls.locate.index import FunctionNode, ModuleIndex
from heal_ls.locate.state import private_stores
from heal_ls.models import Failure, RunResult
from heal_ls.pysource.parse import Def, name_of

CACHES = {"lru_cache", "cache"}  # functools' decorators: a call may return a kept result


def skipped_callees(
    failure: Failure, run: RunResult | None, covered: list[tuple[str, FunctionNode]], index_of
) -> list[tuple[str, FunctionNode, FunctionNode]]:
    """(path, def, caller) for each def of the same module that a function the failing test
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
                found.append((path, node, caller))
    return found


def memoized(index: ModuleIndex, caller: FunctionNode, callee: FunctionNode) -> list[int]:
    """The lines where `caller` obtains a value `callee` made and a cache kept: its calls of
    `callee` when a functools cache wraps it (the call returns the kept result), or its reads
    of the place it keeps `callee`'s result in (`self._made[key] = self._build(key)` ...
    `return self._made[key]`), but not a read right after the caller's own store of another
    value there (`_restored`); [] when neither, no memo."""
    body = index.def_node(caller.def_line)
    if body is None:
        return []
    nodes = list(ast.walk(body))
    found = index.def_node(callee.def_line)
    for decorator in found.decorator_list if found is not None else []:
        if name_of(decorator.func if isinstance(decorator, ast.Call) else decorator) in CACHES:
            return [n.lineno for n in nodes if isinstance(n, ast.Call) and _calls(n, callee)]
    kept = {_place(target) for node in nodes for target in _kept_by(node, callee)}
    reads = [node for node in nodes if isinstance(node, ast.expr) and _reads(node, kept)]
    stores = [
        (node, target)
        for node in nodes
        if isinstance(node, ast.Assign) and not _kept_by(node, callee)
        for target in node.targets
    ]
    return [read.lineno for read in reads if not _restored(body, read, stores)]


def _kept_by(node: ast.AST, callee: FunctionNode) -> list[ast.expr]:
    """The places (`memo[key]`, `self._value`) statement `node` stores a call of `callee` in."""
    if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
        return []
    if not _calls(node.value, callee):
        return []
    return [t for t in node.targets if isinstance(t, (ast.Subscript, ast.Attribute))]


def _place(target: ast.expr) -> str:
    return ast.dump(target.value if isinstance(target, ast.Subscript) else target)


def _restored(body: Def, read: ast.expr, stores: list[tuple[ast.Assign, ast.expr]]) -> bool:
    """Did a store from another source put a value in `read`'s place earlier in its block
    (`self._resolved = cleaned` then `return self._resolved`)? A block runs straight through,
    so the read gets what the caller itself just stored, never the value the memo kept."""
    block, text = block_of(body, read.lineno), ast.unparse(read)
    return any(
        (statement.end_lineno or statement.lineno) < read.lineno
        and ast.unparse(target) == text
        and block_of(body, statement.lineno) == block
        for statement, target in stores
    )


def _calls(call: ast.Call, callee: FunctionNode) -> bool:
    return matches(name_of(call.func) or "", callee)


def _reads(node: ast.AST, kept: set[str]) -> bool:
    """Is `node` a read of one of the `kept` places (`memo[key]`, `self._value`)?"""
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        return ast.dump(node.value) in kept
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        return ast.dump(_stored(node)) in kept
    return False


def _stored(node: ast.Attribute) -> ast.Attribute:
    """`self._value` as a store target dumps with Store: the same place, compared as one."""
    return ast.Attribute(value=node.value, attr=node.attr, ctx=ast.Store())


def called_in(index: ModuleIndex, node: FunctionNode) -> list[str]:
    """The names `node`'s body calls (calls.call_names), read once an index (the index of a
    file's text is cached): the prefetch worker reads them for the functions a failing test
    ran while the tests still run (read_ahead), so the ranking after the run finds them read."""
    names = index.calls.get(node.def_line)
    if names is None:
        names = index.calls[node.def_line] = call_names(_body(index, node))
    return names


def private_writes(index: ModuleIndex, node: FunctionNode) -> set[str]:
    """The private state `node`'s def changes on other objects (state.private_stores), read
    once an index; for the functions a failing test ran, by the prefetch worker while the
    tests run (read_ahead): walking each of them after the run was ~5 ms of locating a
    networkx re-check (Ranker.outside_writers)."""
    found = index.private_writes.get(node.def_line)
    if found is None:
        made = index.def_node(node.def_line)
        found = private_stores(ast.walk(made)) if made is not None else set()
        index.private_writes[node.def_line] = found
    return found


def read_ahead(index: ModuleIndex, node: FunctionNode) -> None:
    """called_in and private_writes of `node` from one walk of its def: its body, in
    call_names' order, and its other parts (decorators, arguments, annotations)."""
    if node.def_line in index.calls and node.def_line in index.private_writes:
        return
    made = index.def_node(node.def_line)
    body = _body(index, node)
    walked = [child for part in body for child in ast.walk(part)]
    index.calls[node.def_line] = calls_among(walked)
    if made is None:
        index.private_writes[node.def_line] = set()
        return
    inside = {id(part) for part in body}
    rest = [part for part in ast.iter_child_nodes(made) if id(part) not in inside]
    head = [made, *(child for part in rest for child in ast.walk(part))]
    index.private_writes[node.def_line] = private_stores(head + walked)


def _body(index: ModuleIndex, node: FunctionNode) -> list[ast.AST]:
    found = index.def_node(node.def_line)
    return [*found.body] if found is not None else []
