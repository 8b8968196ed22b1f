"""The keyword a test passes that a signature refused (class W: the fix adds the keyword).

A test calls `Table.from_csv(path, row_limit=2)`; `from_csv(..., **kwargs)` hands `kwargs` on
and on until a function that cannot take `row_limit` refuses it, in Python's words
(`'row_limit' is an invalid keyword argument for this function`, from C; `f() got an
unexpected keyword argument 'k'`). Where the refusal names a def of ours with no `**`, that def
is the one to change (the ranker's `signature_callee`); where it names none of ours, the def
meant to take the keyword is the outermost one that took it into its `**kwargs` from the test.

And when the test swallowed the TypeError (`try: interp(expr, raise_errors=True) except:
pass`) no record holds it, yet the source still tells: a def the failing test ran hands its
`**kw` to a def of ours whose signature can take no keyword the test passed there, and that
def never ran in the failing test.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

from heal_ls.locate.index import FunctionNode, ModuleIndex
from heal_ls.models import Failure, Frame
from heal_ls.pysource.parse import Def

# 3.8-3.13's words: Python defs say `f() got an unexpected keyword argument 'k'` (3.10+ with
# the qualified name, `Owner.f()`); C functions say `'k' is an invalid keyword argument for
# open()` (`for this function` when it has no name), 3.13 `open() got an unexpected keyword
# argument 'k'` (`this function got ...`).
_REFUSED = (
    re.compile(
        r"^(?:(?P<callee>[\w.<>]+)\(\)|this function) got an unexpected keyword argument "
        r"'(?P<keyword>\w+)'"
    ),
    re.compile(
        r"^'(?P<keyword>\w+)' is an invalid keyword argument for (?:(?P<callee>[\w.<>]+)\(\)|this function)"
    ),
)


@dataclass(frozen=True)
class RefusedKeyword:
    keyword: str  # the keyword argument refused
    callee: str | None  # the function the message names (None: `this function`)


def refused_keyword(failure: Failure) -> RefusedKeyword | None:
    """The keyword a signature's TypeError refused, and the function it names."""
    if failure.exc_type != "TypeError":
        return None
    for pattern in _REFUSED:
        found = pattern.match(failure.message.strip())
        if found is not None:
            return RefusedKeyword(found["keyword"], found["callee"])
    return None


def var_keyword(found: Def) -> str | None:
    """The name of a def's `**kwargs` parameter, None without one."""
    return found.args.kwarg.arg if found.args.kwarg is not None else None


def takes_keyword(found: Def, keyword: str) -> bool:
    """Can a call pass `keyword=` to this def (a named parameter, or its `**`)?"""
    arguments = found.args
    named = {a.arg for a in [*arguments.args, *arguments.kwonlyargs]}
    return keyword in named or arguments.kwarg is not None


def passed_keywords(nodes: Sequence[ast.AST]) -> set[str]:
    """The keywords the calls among `nodes` pass by name (`f(x, k=1)` -> {"k"})."""
    return {
        keyword.arg
        for node in nodes
        for call in ast.walk(node)
        if isinstance(call, ast.Call)
        for keyword in call.keywords
        if keyword.arg is not None
    }


def holds_key(shown: str, key: str) -> bool:
    """Does a dict's recorded repr (`{'header': True, 'row_limit': 2}`) hold `key`?"""
    return re.search(rf"[{{,]\s*['\"]{re.escape(key)}['\"]\s*:", shown) is not None


@dataclass(frozen=True)
class TakenFrame:
    """A frame of the failing path, with its def."""

    frame: Frame
    node: FunctionNode
    found: Def


def keyword_taker(keyword: str, frames: list[TakenFrame]) -> TakenFrame | None:
    """Of the failing path's defs of ours (outermost first), the outermost whose `**kwargs`
    held `keyword` when it called on (its recorded local)."""
    for taken in frames:
        name = var_keyword(taken.found)
        shown = taken.frame.locals.get(name) if name else None
        if shown is not None and holds_key(shown, keyword):
            return taken
    return None


@dataclass(frozen=True)
class Forwarding:
    """A call in a def that hands the def's `**kw` on (`self.eval(expr, **kw)`)."""

    callee: FunctionNode  # the def it calls, in the def's own module
    line: int


def forwardings(index: ModuleIndex, node: FunctionNode, found: Def) -> list[Forwarding]:
    """The calls of `found` that hand on its `**kw` whole to a def of its own module: a
    method of its own class through `self.name(...)`, or a module-level `name(...)`."""
    name = var_keyword(found)
    if name is None:
        return []
    owner = node.qualname.rsplit(".", 1)[0] if "." in node.qualname else None
    found_calls = []
    for call in ast.walk(found):
        if not isinstance(call, ast.Call) or not _hands_on(call, name):
            continue
        target = _callee(call.func, owner)
        callee = index.find(target) if target is not None else None
        if callee is not None:
            found_calls.append(Forwarding(callee, call.lineno))
    return found_calls


def _hands_on(call: ast.Call, name: str) -> bool:
    return any(
        k.arg is None and isinstance(k.value, ast.Name) and k.value.id == name
        for k in call.keywords
    )


def _callee(func: ast.expr, owner: str | None) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if (
        owner is not None
        and "<locals>" not in owner
        and isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "self"
    ):
        return f"{owner}.{func.attr}"
    return None
