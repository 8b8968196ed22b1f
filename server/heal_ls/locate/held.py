"""State a reader reaches through an object it holds: one attribute hop from the reader's own
code (`self.ptc.CRE_DATE3`, `inspector.previous_exception`) to the class of the held object,
and the attributes of that class the hop reads. A value kept there was made where that class
stored it (its constructor, often), not by the reader that only looked it up."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from heal_ls.locate.blocks import in_block
from heal_ls.locate.state import on_self, read_off_self, stored_attribute, stored_on_self
from heal_ls.pysource.parse import Def, name_of


@dataclass(frozen=True)
class BranchReads:
    """The attribute reads of a def's block: those that decided whether it ran (the test of the
    `if`/`while` it is the body of, and the values the def gave the locals that test reads
    before it: `m = self.ptc.CRE_DATE3.search(s)`, then `if m is not None:`), and those inside
    it."""

    deciding: list[ast.Attribute]
    inside: list[ast.Attribute]


def branch_reads(found: Def, line: int) -> BranchReads:
    """The reads of the def's block starting at `line` (`BranchReads`)."""
    inside = [n for n in _attribute_reads(found) if in_block(found, n.lineno, line)]
    opener = next(
        (
            n
            for n in ast.walk(found)
            if isinstance(n, (ast.If, ast.While)) and n.body and n.body[0].lineno == line
        ),
        None,
    )
    if opener is None:
        return BranchReads([], inside)
    deciding = _attribute_reads(opener.test)
    tested = {n.id for n in ast.walk(opener.test) if isinstance(n, ast.Name)}
    for node in ast.walk(found):
        if not isinstance(node, ast.Assign) or node.lineno >= opener.lineno:
            continue
        if any(isinstance(t, ast.Name) and t.id in tested for t in node.targets):
            deciding += _attribute_reads(node.value)
    return BranchReads(deciding, inside)


def _attribute_reads(tree: ast.AST) -> list[ast.Attribute]:
    return [
        n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)
    ]


def held_class(found: Def, own_methods: list[Def], read: ast.Attribute) -> str | None:
    """The class name of the object `read` looks its attribute up on, when the code says whose
    constructor made it: `self.ptc` that a method of the reader's class (`own_methods`) set to
    `Constants()`, or a local the def set to `Inspector(exception)`."""
    held = read.value
    if isinstance(held, ast.Attribute) and on_self(held):
        sources: list[Def] = own_methods
        wanted = held.attr
    elif isinstance(held, ast.Name) and held.id not in ("self", "cls"):
        sources = [found]
        wanted = held.id
    else:
        return None
    made = {
        maker
        for source in sources
        for node in ast.walk(source)
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and any(_names(t, wanted) for t in node.targets)
        and (maker := name_of(node.value.func)) is not None
    }
    return made.pop() if len(made) == 1 else None


def _names(target: ast.expr, wanted: str) -> bool:
    if isinstance(target, ast.Name):
        return target.id == wanted
    return isinstance(target, ast.Attribute) and on_self(target) and target.attr == wanted


def read_state(methods: dict[str, Def], attribute: str) -> set[str]:
    """The attributes of a class's own state that reading `attribute` on one of its objects
    reads: a property or method of that name, what it reads off `self` (a stored accessor,
    the attribute it returns); an attribute its methods store, itself; else, when the class
    answers missing attributes with `__getattr__`, what that reads off `self`."""
    if attribute in methods:
        found = methods[attribute]
        stored = stored_attribute(found)
        return {stored} if stored is not None else read_off_self(found)
    if any(attribute in stored_on_self(m) for m in methods.values()):
        return {attribute}
    if "__getattr__" in methods:
        return read_off_self(methods["__getattr__"])
    return set()
