"""Statement-level mutations: drop a statement, or add a missing call such as `lines.append(x)`."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from heal_ls.repair.snippet import Edit, Mutation, Snippet
from heal_ls.repair.templates import is_docstring, own_nodes
from heal_ls.repair.values import scope_names

SIMPLE_STATEMENTS = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Break, ast.Continue)
COLLECTING = ("append", "add")  # the calls most often forgotten


def drop_statements(snip: Snippet) -> Iterator[Mutation]:
    """Replace one statement (or a whole `if`) with `pass`."""
    for node in own_nodes(snip.func):
        if isinstance(node, SIMPLE_STATEMENTS + (ast.If,)) and not is_docstring(node):
            start, end = snip.span(node)
            yield Mutation("drop", (Edit(start, end, "pass"),), snip.user_line(node), 4.0)


def _receivers(snip: Snippet) -> list[tuple[str, str]]:
    """(object, method) pairs worth calling: collecting methods on local names."""
    pairs = []
    for node in own_nodes(snip.func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name):
                pairs += [(owner.id, m) for m in COLLECTING if m == node.func.attr]
                pairs += [(owner.id, "append")] if node.func.attr == "pop" else []
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


GENERATORS = [missing_calls, drop_statements]
