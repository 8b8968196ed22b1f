"""Statement-level mutations: drop a statement, or add a missing call such as `lines.append(x)`."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from heal_ls.repair.shapes import DELETED
from heal_ls.repair.snippet import Edit, Mutation, Snippet
from heal_ls.repair.templates import is_docstring, own_nodes, params_of
from heal_ls.repair.values import scope_names

SIMPLE_STATEMENTS = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Break, ast.Continue)
COLLECTING = ("append", "add")  # the calls most often forgotten


def drop_statements(snip: Snippet) -> Iterator[Mutation]:
    """Replace one statement (or a whole `if`) with `pass`."""
    for node in own_nodes(snip.func):
        if isinstance(node, SIMPLE_STATEMENTS + (ast.If,)) and not is_docstring(node):
            start, end = snip.span(node)
            yield Mutation("drop", (Edit(start, end, "pass"),), snip.user_line(node), 4.0, DELETED)


def _receivers(snip: Snippet) -> list[tuple[str, str]]:
    """(object, method) pairs worth calling: collections the function fills, pops or tests."""
    pairs = []
    for node in own_nodes(snip.func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name):
                pairs += [(owner.id, m) for m in COLLECTING if m == node.func.attr]
                pairs += [(owner.id, "append")] if node.func.attr == "pop" else []
        elif isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            seen = node.comparators[0]  # `x in seen` with nothing ever added to seen
            if isinstance(seen, ast.Name):
                pairs += [(seen.id, "add"), (seen.id, "append")]
    return list(dict.fromkeys(pairs))


def _block_ends(snip: Snippet) -> Iterator[tuple[list[ast.stmt], int]]:
    """Each statement block with the index a new last statement goes to (before a return)."""
    for node in [snip.func, *own_nodes(snip.func)]:
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if not isinstance(block, list) or not block or not isinstance(block[0], ast.stmt):
                continue
            last = len(block) - 1
            yield block, last if isinstance(block[last], (ast.Return, ast.Continue)) else last + 1


def missing_calls(snip: Snippet) -> Iterator[Mutation]:
    """`lines.append(text)` added at the end of a block (before its return)."""
    pairs = _receivers(snip)
    names = scope_names(snip.func)
    for block, index in _block_ends(snip):
        anchor = block[min(index, len(block) - 1)]
        if anchor.lineno == snip.func.lineno:  # `def f(): return x` has no room
            continue
        indent = snip.indent_of(anchor.lineno)
        if index < len(block):  # before the return: at its line start
            at, text, line = snip.line_start(anchor.lineno), "{call}" + snip.newline, anchor
        else:  # after the last statement
            at, text, line = snip.span(anchor)[1], snip.newline + "{call}", anchor
        for rank, (owner, method) in enumerate(pairs):
            for arg in names:
                if arg != owner:
                    call = f"{indent}{owner}.{method}({arg})"
                    edit = Edit(at, at, text.format(call=call))
                    cost = 4.2 + 0.1 * rank
                    yield Mutation("add-call", (edit,), snip.user_line(line), cost)


def missing_assignments(snip: Snippet) -> Iterator[Mutation]:
    """`prev = node` forgotten near the end of a loop body (after its last statement, or just
    before it): a = b for a name the function assigns and another name in scope."""
    names = scope_names(snip.func)
    pairs = [(a, b) for a in names if a not in params_of(snip.func) for b in names if a != b]
    for node in own_nodes(snip.func):
        if not isinstance(node, (ast.For, ast.While)) or node.body[-1].lineno == node.lineno:
            continue
        last = node.body[-1]
        indent, nl = snip.indent_of(last.lineno), snip.newline
        spots = [(snip.span(last)[1], nl + indent + "{}", 4.4)]
        if snip.text[snip.line_start(last.lineno) : snip.span(last)[0]] == indent:
            spots.append((snip.line_start(last.lineno), indent + "{}" + nl, 4.5))
        for at, template, cost in spots:
            for rank, (target, value) in enumerate(pairs):
                edit = Edit(at, at, template.format(f"{target} = {value}"))
                yield Mutation("add-assign", (edit,), snip.user_line(last), cost + 0.02 * rank)


GENERATORS = [missing_calls, missing_assignments, drop_statements]
