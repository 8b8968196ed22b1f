"""Value mutations: constants, off-by-one on indices/slices/range, names, attributes, calls, tuples."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from heal_ls.pysource.parse import DEF_TYPES, Def
from heal_ls.repair import shapes
from heal_ls.repair.snippet import Edit, Mutation, Snippet, plus

# Methods easily confused with their opposite (`code.lower()` meant `code.upper()`).
OPPOSITE_METHODS = {
    "lower": "upper",
    "upper": "lower",
    "startswith": "endswith",
    "endswith": "startswith",
    "lstrip": "rstrip",
    "rstrip": "lstrip",
    "append": "extend",
    "extend": "append",
    "keys": "values",
    "values": "keys",
    "find": "rfind",
    "rfind": "find",
}
SWAP_CALLS = {
    "any": "all",
    "all": "any",
    "min": "max",
    "max": "min",
    "int": "float",
    "float": "int",
}


def _replace(
    kind: str, snip: Snippet, node: ast.AST, text: str, cost: float, shape: str = ""
) -> Mutation:
    start, end = snip.span(node)
    return Mutation(kind, (Edit(start, end, text),), snip.user_line(node), cost, shape)


def constants(snip: Snippet) -> Iterator[Mutation]:
    """Integers +-1 and True <-> False."""
    returned, indices = shapes.returned_values(snip), shapes.literal_indices(snip)
    for node in snip.nodes():
        if not isinstance(node, ast.Constant):
            continue
        shape = shapes.RETURNED_CONSTANT if id(node) in returned else ""
        if id(node) in indices:
            shape = shapes.LITERAL_INDEX
        if isinstance(node.value, bool):
            yield _replace("bool", snip, node, str(not node.value), 1.0, shape)
        elif isinstance(node.value, int):
            for new in (node.value + 1, node.value - 1):
                yield _replace("const", snip, node, str(new), 1.2, shape)


def _index_parts(node: ast.Subscript) -> list[ast.AST]:
    part = node.slice
    if isinstance(part, ast.Slice):
        return [p for p in (part.lower, part.upper) if p is not None]
    if isinstance(part, ast.Tuple):
        return list(part.elts)
    return [part]


def off_by_one(snip: Snippet) -> Iterator[Mutation]:
    """`a[i]` -> `a[i + 1]`, `range(n)` -> `range(n + 1)`, `len(x)` -> `len(x) - 1`, slice bounds,
    `lo = mid` -> `lo = mid + 1`."""
    for node in snip.nodes():
        exprs, cost = [], 1.3
        if isinstance(node, ast.Subscript):
            exprs = _index_parts(node)
            if isinstance(node.slice, ast.Slice):
                for bound in (node.slice.lower, node.slice.upper):
                    if bound is not None:
                        yield _replace("drop-bound", snip, bound, "", 2.5)
        elif isinstance(node, ast.Call) and _called(node) == "range":
            exprs = list(node.args)
        elif isinstance(node, ast.Call) and _called(node) == "len":
            exprs, cost = [node], 2.0
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
            exprs, cost = [node.value], 1.4  # `lo = mid` -> `lo = mid + 1`: a bound that moves
        for expr in exprs:
            if isinstance(expr, (ast.Constant, ast.Starred)):
                continue  # constants are constants()'s job
            for delta in ("+ 1", "- 1"):
                yield _replace("off-by-one", snip, expr, plus(snip, expr, delta), cost)


def local_call_args(snip: Snippet) -> Iterator[Mutation]:
    """Arguments of calls to this function or its nested defs: `f(mid)` -> `f(mid + 1)`,
    `kth(above, k)` -> `kth(above, k - other)`."""
    scope = scope_names(snip.func)
    local = set(scope) | {snip.func.name}
    for node in snip.nodes():
        if not (isinstance(node, ast.Call) and _called(node) in local):
            continue
        for arg in node.args:
            if isinstance(arg, (ast.Name, ast.BinOp, ast.Attribute, ast.Subscript)):
                for delta in ("+ 1", "- 1"):
                    yield _replace("call-arg", snip, arg, plus(snip, arg, delta), 1.6)
            if isinstance(arg, ast.Name):
                others = [n for n in scope if n != arg.id]
                for rank, other in enumerate(others):
                    for op in ("-", "+"):
                        text = f"{arg.id} {op} {other}"
                        yield _replace("call-arg", snip, arg, text, 3.4 + 0.1 * rank)


def _called(node: ast.Call) -> str | None:
    return node.func.id if isinstance(node.func, ast.Name) else None


def calls(snip: Snippet) -> Iterator[Mutation]:
    """any <-> all, min <-> max, int <-> float, swapped arguments, and `f(x)` -> `x`."""
    for node in snip.nodes():
        if not isinstance(node, ast.Call):
            continue
        name = _called(node)
        if name in SWAP_CALLS:
            yield _replace("swap-call", snip, node.func, SWAP_CALLS[name], 1.0)
        args = node.args
        for a, b in zip(args, args[1:]):
            if not isinstance(a, ast.Starred) and not isinstance(b, ast.Starred):
                yield _swap(snip, a, b, "swap-args", 2.0)
        if len(args) == 1 and not node.keywords and not isinstance(args[0], ast.Starred):
            yield _replace("unwrap-call", snip, node, snip.source_of(args[0]), 2.8)


def _swap(snip: Snippet, a: ast.AST, b: ast.AST, kind: str, cost: float) -> Mutation:
    (a0, a1), (b0, b1) = snip.span(a), snip.span(b)
    edits = (Edit(a0, a1, snip.text[b0:b1]), Edit(b0, b1, snip.text[a0:a1]))
    return Mutation(kind, edits, snip.user_line(a), cost)


def tuples(snip: Snippet) -> Iterator[Mutation]:
    for node in snip.nodes():
        if isinstance(node, ast.Tuple):
            for a, b in zip(node.elts, node.elts[1:]):
                if not isinstance(a, ast.Starred) and not isinstance(b, ast.Starred):
                    yield _swap(snip, a, b, "swap-elements", 2.0)


def scope_names(func: Def) -> list[str]:
    """Parameters and names assigned in the function (comprehension variables excluded)."""
    args = func.args
    params = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    params += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    local_only = set()
    for node in ast.walk(func):
        if isinstance(node, ast.comprehension):
            local_only |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    stored = []
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stored.append(node.id)
        elif isinstance(node, DEF_TYPES) and node is not func:
            stored.append(node.name)
    names = params + [n for n in stored if n not in local_only]
    return list(dict.fromkeys(names))


NEAREST_NAMES = 6  # alternatives per name: the in-scope names used closest to it


def names(snip: Snippet) -> Iterator[Mutation]:
    """Another in-scope name for a name; names used nearby are tried first."""
    scope = scope_names(snip.func)
    in_scope = set(scope)
    by_line: dict[int, list[str]] = {}
    for node in snip.nodes():
        if isinstance(node, ast.Name) and node.id in in_scope:
            by_line.setdefault(node.lineno, []).append(node.id)
    params = scope[: len(snip.func.args.args)]
    for node in snip.nodes():
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in in_scope:
            others = _nearest(by_line, node.lineno, node.id) + params + scope
            others = [n for n in dict.fromkeys(others) if n != node.id][:NEAREST_NAMES]
            for rank, other in enumerate(others):
                yield _replace("name", snip, node, other, 3.0 + 0.1 * rank)


def _nearest(by_line: dict[int, list[str]], line: int, name: str) -> list[str]:
    found: list[str] = []
    for distance in range(0, 40):
        for at in {line - distance, line + distance}:
            found += by_line.get(at, [])
        if len(set(found) - {name}) >= NEAREST_NAMES:
            break
    return found


def attributes(snip: Snippet) -> Iterator[Mutation]:
    """`x.outgoing` -> `x.incoming`: another attribute name the function uses the same way."""
    called = {id(n.func) for n in snip.nodes() if isinstance(n, ast.Call)}
    attrs = [n for n in snip.nodes() if isinstance(n, ast.Attribute)]
    for node in attrs:
        same_use = [a.attr for a in attrs if (id(a) in called) == (id(node) in called)]
        end = snip.span(node)[1]
        opposite = OPPOSITE_METHODS.get(node.attr) if id(node) in called else None
        if opposite:
            edit = Edit(end - len(node.attr), end, opposite)
            yield Mutation("opposite-method", (edit,), snip.user_line(node), 1.6)
        for other in dict.fromkeys(same_use):
            if other not in (node.attr, opposite):
                edit = Edit(end - len(node.attr), end, other)
                yield Mutation("attribute", (edit,), snip.user_line(node), 3.2)


GENERATORS = [constants, off_by_one, local_call_args, calls, tuples, names, attributes]
