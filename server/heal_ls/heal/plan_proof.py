"""Proving a planned edit node by node: only the planned nodes and the import block
changed, the module compiles, names are kept."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from heal_ls.heal.plan_answer import _bare

IMPORT_BLOCK = "<imports>"


class PlanError(Exception):
    """The answer cannot become a safe edit; str(err) says why, in words fit for the model."""


@dataclass
class NodeEdit:
    """module_text[start:end] becomes `text`; `qualname` names the touched node."""

    qualname: str
    start: int
    end: int
    text: str


def _dedent_lines(source: str) -> str:
    import textwrap

    return textwrap.dedent(source.replace("\r\n", "\n").replace("\r", "\n").lstrip("\n"))


def prove(before: str, after: str, edits: list[NodeEdit]) -> None:
    """Every byte outside the touched nodes and the import block is identical; each touched node
    is one def that compiles and keeps its name; the import block only gained imports."""
    from heal_ls.pysource.splice import SpliceError

    at_before = at_after = 0
    for edit in edits:
        if edit.start < at_before:
            raise PlanError("two touched nodes overlap")
        gap = edit.start - at_before
        if after[at_after : at_after + gap] != before[at_before : edit.start]:
            raise PlanError(
                f"the edit changed text outside the touched nodes (near {edit.qualname})"
            )
        at_after += gap
        if after[at_after : at_after + len(edit.text)] != edit.text:
            raise PlanError(f"`{edit.qualname}` is not where it was planned")
        at_after += len(edit.text)
        at_before = edit.end
        try:
            _prove_node(before[edit.start : edit.end], edit)
        except SpliceError as exc:
            raise PlanError(str(exc)) from None
    if after[at_after:] != before[at_before:]:
        raise PlanError("the edit changed text after the last touched node")
    if any(".<locals>." in e.qualname for e in edits):
        # a nested def may use `nonlocal`: it compiles only inside its outer def
        try:
            compile(after, "<heal>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            raise PlanError(f"the module does not compile after the edit: {exc}") from None


def _prove_node(old: str, edit: NodeEdit) -> None:
    from heal_ls.pysource.splice import SpliceError

    if edit.qualname == IMPORT_BLOCK:
        _prove_imports(old, edit.text)
        return
    code = _dedent_lines(edit.text)
    try:
        tree = ast.parse(code)
        if ".<locals>." not in edit.qualname:
            compile(tree, "<heal>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise SpliceError(f"`{edit.qualname}` does not compile: {exc}") from None
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if len(tree.body) != 1 or not defs or defs[0].name != _bare(edit.qualname):
        raise SpliceError(f"`{edit.qualname}` is no longer one def of that name")


def _prove_imports(old: str, new: str) -> None:
    try:
        before, after = ast.parse(old.lstrip("\ufeff")).body, ast.parse(new).body
    except SyntaxError as exc:
        raise PlanError(f"the new import block does not parse: {exc}") from None
    kinds = (ast.Import, ast.ImportFrom)
    if [ast.dump(s) for s in before if not isinstance(s, kinds)] != [
        ast.dump(s) for s in after if not isinstance(s, kinds)
    ]:
        raise PlanError("the import block changed more than its imports")
    if not _bindings(before) <= _bindings(after):
        raise PlanError("the import block lost an import")


def _bindings(stmts) -> set[tuple]:
    found: set[tuple] = set()
    for stmt in stmts:
        if isinstance(stmt, ast.Import):
            found.update(("", a.name, a.asname) for a in stmt.names)
        elif isinstance(stmt, ast.ImportFrom):
            found.update((f"{'.' * stmt.level}{stmt.module}", a.name, a.asname) for a in stmt.names)
    return found
