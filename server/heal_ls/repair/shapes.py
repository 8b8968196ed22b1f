"""Edits known to overfit: they make one failing test pass and quietly break the rest.

Over a few dozen real bugs, every wrong "verified" local fix had one of these shapes: a whole
condition or returned predicate negated or reversed (`in` -> `not in`, `<` -> `>`), a returned
expression replaced by a constant (`return True` -> `return False`), a statement or a guard
clause deleted, a literal index changed (`[1]` -> `[0]`). The search tries them after every other single edit; like any
fix, one without a guard is `weak` at best.
"""

from __future__ import annotations

import ast

from heal_ls.repair.snippet import Snippet

NEGATED_CONDITION = "negated condition"
NEGATED_RETURN = "negated returned predicate"
RETURNED_CONSTANT = "returned constant"
DELETED = "deleted statement or guard"
LITERAL_INDEX = "changed literal index"

# Swaps that turn a comparison (nearly) into its negation: the complement (`<` -> `>=`) or the
# reverse (`<` -> `>`, which differs from the complement only at equality: `while lo > hi` on a
# loop that needs `lo < hi` simply deletes the loop).
OPPOSITE = {
    ast.Lt: (">=", ">"),
    ast.LtE: (">", ">="),
    ast.Gt: ("<=", "<"),
    ast.GtE: ("<", "<="),
    ast.Eq: ("!=",),
    ast.NotEq: ("==",),
    ast.Is: ("is not",),
    ast.IsNot: ("is",),
    ast.In: ("not in",),
    ast.NotIn: ("in",),
}


def whole_predicates(snip: Snippet) -> dict[int, str]:
    """id(node) -> its shape when negated, for every expression that is a whole condition
    (if/while/assert/conditional/comprehension test) or a whole returned value, or a clause of
    one (`return "push" in parts and force`: negating `"push" in parts` overfits as well)."""
    todo: list[tuple[ast.AST, str]] = []
    for node in snip.nodes():
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            todo.append((node.test, NEGATED_CONDITION))
        elif isinstance(node, ast.comprehension):
            todo += [(test, NEGATED_CONDITION) for test in node.ifs]
        elif isinstance(node, ast.Return) and node.value is not None:
            todo.append((node.value, NEGATED_RETURN))
    found: dict[int, str] = {}
    while todo:
        node, shape = todo.pop()
        found[id(node)] = shape
        if isinstance(node, ast.BoolOp):
            todo += [(value, shape) for value in node.values]
    return found


def returned_values(snip: Snippet) -> set[int]:
    return {
        id(node.value)
        for node in snip.nodes()
        if isinstance(node, ast.Return) and node.value is not None
    }


def literal_indices(snip: Snippet) -> set[int]:
    """Constants that are a subscript's whole index: `xs[1]`, `xs[-1]`, `row[0, 2]` (a slice
    bound, `xs[1:]`, is a range's edge, not a pick of one element)."""
    found = set()
    for node in snip.nodes():
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
            part = node.slice
            for item in part.elts if isinstance(part, ast.Tuple) else [part]:
                if isinstance(item, ast.UnaryOp) and isinstance(item.op, ast.USub):
                    item = item.operand
                if isinstance(item, ast.Constant):
                    found.add(id(item))
    return found
