"""What an except clause of a def on the failing path did with the exception the failure
reports (class J). The exception passed through a frame of ours inside a `try` whose clause for
its class caught it; it still came out, so that clause let it out. When the clause does nothing
else (`except OSError: raise`, the last clause of its try; or `except ParseError as ex: exc =
ex`, raised later by `if exc is not None: raise exc`), letting it out was that def's choice,
made for this very class: the fix that handles it (`ENAMETOOLONG` answered with a 404, a style
that parsed returned) goes there, not where it was raised."""

from __future__ import annotations

import ast
import builtins

from heal_ls.locate.operators import ClassTable
from heal_ls.pysource.parse import Def, name_of, statements_holding

# A clause for every exception says nothing about this one's class.
BROAD = {"Exception", "BaseException"}


def exception_lineage(exc_type: str, classes: ClassTable) -> set[str]:
    """The raised class and its bases, by name: Python's own by their MRO (`OSError`,
    `Exception`, ...), a class of ours by the table, with the MRO of a builtin it derives
    from (`class ParseError(RuntimeError)`)."""
    short = exc_type.rsplit(".", 1)[-1]
    names = {short} | classes.lineage([short])
    for name in [*names, *(b for n in names for b in classes.bases.get(n, []))]:
        builtin = getattr(builtins, name, None)
        if isinstance(builtin, type) and issubclass(builtin, BaseException):
            names |= {cls.__name__ for cls in builtin.__mro__}
    return names


def let_through(function: Def, line: int, lineage: set[str]) -> int | None:
    """The line of the except clause of `function` that caught the exception raised through
    `line` (the first clause naming its class or a base, `lineage`; not one for every
    exception) and let it out doing nothing else with it: its whole body re-raises it, and no
    later clause of that try would have caught it (a re-raise before such a clause keeps the
    class from the broader handling below: `except MultipleInvalid: raise` before `except
    Invalid as e: raise MultipleInvalid([e])`); or its body only keeps it in a local the def
    raises later. A clause that does more before re-raising (restores a parser's position, adds
    context to the exception) handled it and passed it on. None when no such clause caught it."""
    for tried in reversed(tries_holding(function, line)):  # innermost first: the first to see it
        clauses = tried.handlers
        at = next((i for i, c in enumerate(clauses) if _catches(c, lineage)), None)
        if at is None:
            continue
        clause = clauses[at]
        if _broad(clause):
            return None
        shielded = any(_catches(later, lineage) for later in clauses[at + 1 :])
        if (_reraises(clause) and not shielded) or _kept_to_raise(function, clause):
            return clause.lineno
        return None
    return None


def tries_holding(function: Def, line: int) -> list[ast.Try]:
    """The try statements of `function` whose body holds `line`, outermost first: those whose
    clauses saw what was raised through that line."""
    return [
        s
        for s in statements_holding(function, line)
        if isinstance(s, ast.Try) and any(_holds(b, line) for b in s.body)
    ]


def _holds(statement: ast.stmt, line: int) -> bool:
    return statement.lineno <= line <= (statement.end_lineno or statement.lineno)


def _caught_names(clause: ast.ExceptHandler) -> set[str] | None:
    """The class names an except clause names; None for a bare `except:`."""
    if clause.type is None:
        return None
    named = clause.type.elts if isinstance(clause.type, ast.Tuple) else [clause.type]
    return {name for node in named if (name := name_of(node))}


def _catches(clause: ast.ExceptHandler, lineage: set[str]) -> bool:
    names = _caught_names(clause)
    return names is None or bool(names & lineage)


def _broad(clause: ast.ExceptHandler) -> bool:
    names = _caught_names(clause)
    return names is None or bool(names & BROAD)


def _reraises(clause: ast.ExceptHandler) -> bool:
    """Is the clause's whole body `raise`, or `raise e` of its own `as e`?"""
    if len(clause.body) != 1 or not isinstance(clause.body[0], ast.Raise):
        return False
    raised = clause.body[0]
    if raised.exc is None:
        return True
    own = isinstance(raised.exc, ast.Name) and raised.exc.id == clause.name
    return own and raised.cause is None


def _kept_to_raise(function: Def, clause: ast.ExceptHandler) -> bool:
    """Does the clause only keep the caught exception in locals (`exc = ex`), one of which the
    def raises elsewhere (`raise exc`)?"""
    kept: set[str] = set()
    for statement in clause.body:
        if isinstance(statement, (ast.Pass, ast.Continue)):
            continue
        if not (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(statement.value, ast.Name)
            and statement.value.id == clause.name
        ):
            return False
        kept.add(statement.targets[0].id)
    return any(
        isinstance(node, ast.Raise) and isinstance(node.exc, ast.Name) and node.exc.id in kept
        for node in ast.walk(function)
    )
