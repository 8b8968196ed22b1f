"""Trivial leftovers of a mutation, removed: `x - 0`, `x + 0`, `0 + x`, `x * 1`, `1 * x`,
`not not x` become `x`.

A constant nudged to 0 or 1 (`sum(p) / len(p) - 1` -> `... - 0`) may pass the tests, but the
patch a user should see is the plain expression. Only leftovers the patch made are removed: the
same text already in the original function stays as the user wrote it. Edits are made on the
text (the operator token and the operand's own text, parentheses included), so the rest keeps
its formatting.
"""

from __future__ import annotations

import ast
import functools
from collections import Counter

from heal_ls.repair.snippet import Edit, Snippet, between


def _is_number(node: ast.AST, value: int) -> bool:
    return (
        isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value == value
    )


def _trivial(snip: Snippet) -> list[tuple[ast.AST, str]]:
    """(node, the text it means) for each trivial expression, outermost first."""
    found = []
    for node in ast.walk(snip.func):
        kept = None
        if isinstance(node, ast.BinOp):
            start, end = snip.span(node)
            op = between(snip, snip.span(node.left)[1], snip.span(node.right)[0])
            if op is None:
                continue
            adds = isinstance(node.op, (ast.Add, ast.Sub))
            if (adds and _is_number(node.right, 0)) or (
                isinstance(node.op, ast.Mult) and _is_number(node.right, 1)
            ):
                kept = snip.text[start : op[0]]
            elif (isinstance(node.op, ast.Add) and _is_number(node.left, 0)) or (
                isinstance(node.op, ast.Mult) and _is_number(node.left, 1)
            ):
                kept = snip.text[op[1] : end]
        elif (
            isinstance(node, ast.UnaryOp)
            and isinstance(node.op, ast.Not)
            and isinstance(node.operand, ast.UnaryOp)
            and isinstance(node.operand.op, ast.Not)
        ):
            inner = node.operand
            kept = snip.source_of(inner)[len("not") :]
        if kept is not None:
            found.append((node, kept.strip()))
    return found


def simplified(candidate: str, original: str) -> str:
    """`candidate` without the trivial expressions it added to `original` (unchanged when it
    has none, or when the result would not parse)."""
    try:
        kept_as_written = _as_written(original)
        text = candidate
        for _ in range(8):  # `(x - 0) * 1`: one layer per pass
            simpler = _one_pass(text, kept_as_written)
            if simpler == text:
                return text
            Snippet(simpler)  # still one def that parses
            text = simpler
        return text
    except (SyntaxError, ValueError):
        return candidate


@functools.lru_cache(maxsize=8)
def _as_written(original: str) -> Counter:
    """The trivial expressions the original already has (one parse per original, not per
    candidate: on a 180-line function that parse and walk cost as much as the candidate's)."""
    mine = Snippet(original)
    return Counter(mine.source_of(n) for n, _ in _trivial(mine))


def _one_pass(text: str, kept_as_written: Counter) -> str:
    snip = Snippet(text)
    budget = Counter(kept_as_written)
    edits: list[Edit] = []
    for node, kept in _trivial(snip):
        start, end = snip.span(node)
        source = snip.source_of(node)
        if budget[source] > 0:  # the user's own `x * 1`
            budget[source] -= 1
            continue
        if not any(e.start <= start and end <= e.end for e in edits):
            edits.append(Edit(start, end, kept))
    return snip.apply(tuple(edits)) if edits else text
