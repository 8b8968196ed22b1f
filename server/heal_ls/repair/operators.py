"""Operator mutations: comparisons, arithmetic, augmented assignment, and/or, not, unary minus.

Each generator yields Mutations for one snippet; alternatives are listed most likely first
(`<` is more often meant as `<=` than as `==`), and the cost grows along the list.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import replace

from heal_ls.repair import shapes
from heal_ls.repair.snippet import Edit, Mutation, Snippet, between

COMPARE = {
    ast.Lt: ["<=", ">", ">=", "!=", "=="],
    ast.LtE: ["<", ">=", ">", "==", "!="],
    ast.Gt: [">=", "<", "<=", "!=", "=="],
    ast.GtE: [">", "<=", "<", "==", "!="],
    ast.Eq: ["!=", "<=", ">=", "<", ">"],
    ast.NotEq: ["==", "<", ">"],
    ast.Is: ["is not", "=="],
    ast.IsNot: ["is", "!="],
    ast.In: ["not in"],
    ast.NotIn: ["in"],
}

ARITH = {
    ast.Add: ["-", "*"],
    ast.Sub: ["+", "//"],
    ast.Mult: ["+", "//", "/", "**"],
    ast.Div: ["//", "*"],
    ast.FloorDiv: ["/", "%", "*"],
    ast.Mod: ["//", "-"],
    ast.Pow: ["*"],
    ast.BitXor: ["&", "|"],
    ast.BitAnd: ["|", "^"],
    ast.BitOr: ["&", "^"],
    ast.LShift: [">>"],
    ast.RShift: ["<<"],
}


def _choices(kind: str, line: int, span, options: list[str], base: float, step=0.3):
    for rank, text in enumerate(options):
        yield Mutation(kind, (Edit(span[0], span[1], text),), line, base + step * rank)


def compare_swaps(snip: Snippet) -> Iterator[Mutation]:
    whole = shapes.whole_predicates(snip)
    for node in snip.nodes():
        if not isinstance(node, ast.Compare):
            continue
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            span = between(snip, snip.span(left)[1], snip.span(right)[0])
            if span:
                options = COMPARE.get(type(op), [])
                for m in _choices("compare", snip.user_line(right), span, options, 1.0):
                    negates = len(node.ops) == 1 and m.edits[0].text in shapes.OPPOSITE[type(op)]
                    yield replace(m, shape=whole.get(id(node), "")) if negates else m
            left = right


def arith_swaps(snip: Snippet) -> Iterator[Mutation]:
    for node in snip.nodes():
        if isinstance(node, ast.BinOp):
            span = between(snip, snip.span(node.left)[1], snip.span(node.right)[0])
            options = ARITH.get(type(node.op), [])
            if span:
                yield from _choices("arith", snip.user_line(node.right), span, options, 1.4)
        elif isinstance(node, ast.AugAssign):
            span = between(snip, snip.span(node.target)[1], snip.span(node.value)[0])
            options = [o + "=" for o in ARITH.get(type(node.op), [])]
            if span:
                yield from _choices("augassign", snip.user_line(node), span, options, 1.4)


def accumulations(snip: Snippet) -> Iterator[Mutation]:
    """`total = value` -> `total += value` when `total` was bound before: a lost accumulation."""
    assigns = [n for n in snip.nodes() if isinstance(n, ast.Assign) and len(n.targets) == 1]
    bound: set[str] = set()
    for node in sorted(assigns, key=lambda n: (n.lineno, n.col_offset)):  # source order
        target = node.targets[0]
        if isinstance(target, ast.Name) and target.id in bound:
            span = between(snip, snip.span(target)[1], snip.span(node.value)[0])
            if span:
                yield from _choices("accumulate", snip.user_line(node), span, ["+=", "-="], 2.0)
        bound |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def binop_operands(snip: Snippet) -> Iterator[Mutation]:
    """`a - b` -> `b - a`, and `1 + f(x)` -> `f(x)` / `1` (an operand too many)."""
    returned = shapes.returned_values(snip)
    for node in snip.nodes():
        if not isinstance(node, ast.BinOp):
            continue
        start, end = snip.span(node)
        left, right = snip.source_of(node.left), snip.source_of(node.right)
        line = snip.user_line(node)
        if not isinstance(node.op, ast.Mult) and "\n" not in snip.text[start:end]:
            op = snip.text[snip.span(node.left)[1] : snip.span(node.right)[0]]
            if "(" not in op and ")" not in op:
                yield Mutation("swap-operands", (Edit(start, end, right + op + left),), line, 2.2)
        for kept, keep in ((node.right, right), (node.left, left)):
            constant = id(node) in returned and isinstance(kept, ast.Constant)
            shape = shapes.RETURNED_CONSTANT if constant else ""
            yield Mutation("drop-operand", (Edit(start, end, keep),), line, 2.6, shape)


def boolean_swaps(snip: Snippet) -> Iterator[Mutation]:
    """and <-> or (the whole chain), dropping one operand, dropping a `not`."""
    whole = shapes.whole_predicates(snip)
    for node in snip.nodes():
        if isinstance(node, ast.BoolOp):
            line = snip.user_line(node)
            new = "or" if isinstance(node.op, ast.And) else "and"
            edits = []
            for a, b in zip(node.values, node.values[1:]):
                span = between(snip, snip.span(a)[1], snip.span(b)[0])
                if span is None:
                    break
                edits.append(Edit(span[0], span[1], new))
            else:
                yield Mutation("boolop", tuple(edits), line, 1.5)
            start, end = snip.span(node)
            for value in node.values:
                edit = Edit(start, end, snip.source_of(value))
                yield Mutation("drop-clause", (edit,), line, 2.8, shapes.DELETED)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
            start = snip.span(node)[0]
            edit = Edit(start, snip.span(node.operand)[0], "")
            shape = whole.get(id(node), "") if isinstance(node.op, ast.Not) else ""
            yield Mutation("drop-unary", (edit,), snip.user_line(node), 1.8, shape)


def negate_conditions(snip: Snippet) -> Iterator[Mutation]:
    """`if c:` -> `if not c:` (also while, conditional expressions and comprehension filters)."""
    for node in snip.nodes():
        tests = []
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            tests = [node.test]
        elif isinstance(node, ast.comprehension):
            tests = list(node.ifs)
        for test in tests:
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                continue  # dropping the `not` is drop-unary's job
            text = snip.source_of(test)
            simple = isinstance(test, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))
            new = f"not {text}" if simple else f"not ({text})"
            start, end = snip.span(test)
            edit = Edit(start, end, new)
            yield Mutation("negate", (edit,), snip.user_line(test), 2.0, shapes.NEGATED_CONDITION)


GENERATORS = [
    compare_swaps,
    arith_swaps,
    accumulations,
    boolean_swaps,
    negate_conditions,
    binop_operands,
]
