"""Which recorded block a line of a def belongs to: the same cut as the agent's block hits
(`testing/agent/heal_hits.py`: the first statement of every branch a def can take, and the
statement after every compound one, each keyed by its line; a def's entry block is the def's
own hit), read here from the def's syntax so a line can be asked "did the failing test run
you?" with the blocks it recorded."""

from __future__ import annotations

import ast

# Statement lists where a branch starts, by node type; the other lists of a compound statement
# (a try's body, its finally, a with's body) run whenever the statement does. The agent's own
# table (heal_hits._BRANCHES) is the same: the agent imports nothing of heal_ls and locate
# nothing of testing, so it is written twice, and tests/unit/locate/test_block_of.py checks
# this cut against the agent's instrumented code.
BLOCK_BRANCHES = {
    "If": ("body", "orelse"),
    "For": ("body", "orelse"),
    "AsyncFor": ("body", "orelse"),
    "While": ("body", "orelse"),
    "Try": ("orelse",),
    "TryStar": ("orelse",),
    "ExceptHandler": ("body",),
    "match_case": ("body",),
}
BLOCK_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

Span = tuple[int, int, int | None]  # a statement's first and last line, its block (None: entry)


def block_of(function: ast.FunctionDef | ast.AsyncFunctionDef, line: int) -> int | None:
    """The first line of the recorded block holding `line` of `function`'s body; None for its
    entry block (it ran whenever the def did) or a line outside its own statements."""
    spans: list[Span] = []
    _statements(function.body, None, True, spans)
    holding = [s for s in spans if s[0] <= line <= s[1]]
    return max(holding, key=lambda s: s[0])[2] if holding else None  # the innermost statement


def in_block(function: ast.FunctionDef | ast.AsyncFunctionDef, line: int, block: int) -> bool:
    """Is `line` of `function` in a statement of the recorded block starting at `block`, or in
    a branch nested in one (what runs once that block runs, as far as it goes)?"""
    spans: list[Span] = []
    _statements(function.body, None, True, spans)
    return any(s[0] <= line <= s[1] for s in spans if s[2] == block)


def _statements(statements: list[ast.stmt], block: int | None, entry: bool, spans: list[Span]):
    mark = not entry
    for statement in statements:
        if mark:
            block = statement.lineno
        spans.append((statement.lineno, statement.end_lineno or statement.lineno, block))
        mark = _branches(statement, block, spans)


def _branches(node: ast.AST, block: int | None, spans: list[Span]) -> bool:
    if isinstance(node, SCOPES):  # a nested def's body is its own function's blocks
        return False
    starts = BLOCK_BRANCHES.get(type(node).__name__, ())
    compound = False
    for name in BLOCK_LISTS:
        inner = getattr(node, name, None)
        if not isinstance(inner, list) or not inner:
            continue
        compound = True
        if name in ("handlers", "cases"):
            for part in inner:
                _branches(part, block, spans)
        else:
            _statements(inner, block, name not in starts, spans)
    return compound


def starts_handler(function: ast.FunctionDef | ast.AsyncFunctionDef, line: int) -> bool:
    """Is `line` the first statement of an `except` clause of `function` (the block a caught
    failure runs)?"""
    return any(
        isinstance(handler, ast.ExceptHandler) and handler.body[0].lineno == line
        for handler in ast.walk(function)
    )


def condition_unfinished(function: ast.FunctionDef | ast.AsyncFunctionDef, line: int, ran) -> bool:
    """Is `line` in the test of an `if` or `while` of `function` none of whose next blocks
    (its branches, the statement after it) is in `ran`: the run never got past that test
    (a call before it raised)? False when a next block is not a recorded one (the test was
    the last statement of its list, without an `else`): then nothing tells."""
    for statements in _statement_lists(function.body):
        for at, statement in enumerate(statements):
            if not isinstance(statement, (ast.If, ast.While)):
                continue
            test = statement.test
            if not test.lineno <= line <= (test.end_lineno or test.lineno):
                continue
            after = statements[at + 1 : at + 2]
            if not after and not statement.orelse:
                return False
            following = [statement.body, statement.orelse, after]
            return not any(part[0].lineno in ran for part in following if part)
    return False


def _statement_lists(statements: list[ast.stmt]):
    """`statements` and every statement list nested in them, not entering nested scopes."""
    yield statements
    for statement in statements:
        if isinstance(statement, SCOPES):
            continue
        for child in [
            statement,
            *getattr(statement, "handlers", []),
            *getattr(statement, "cases", []),
        ]:
            for name in BLOCK_LISTS:
                inner = getattr(child, name, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    yield from _statement_lists(inner)
