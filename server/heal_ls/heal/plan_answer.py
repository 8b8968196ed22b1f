"""Reading a model's answer for an edit plan: its statements, and which def of the
module each of its defs maps to."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from heal_ls.models import Suspect


@dataclass
class _Def:
    qualname: str  # as written in the answer: "name" or "Class.name"
    source: str  # dedented to column 0, decorators included


@dataclass
class _Answer:
    defs: list[_Def] = field(default_factory=list)
    imports: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _parse_answer(answer: str) -> _Answer | None:
    import libcst as cst

    from heal_ls.heal.answer import fenced_blocks, normalise_answer
    from heal_ls.pysource.parse import parse_block

    text = normalise_answer(answer)
    found = _Answer()
    for block in fenced_blocks(text) or [text]:
        try:
            code, _ = parse_block(block)
            module = cst.parse_module(code)
        except (SyntaxError, cst.ParserSyntaxError, RecursionError):
            continue
        for stmt in module.body:
            _read_statement(module, stmt, "", found)
    return found if found.defs or found.imports else None


def _read_statement(module, stmt, owner: str, found: _Answer) -> None:
    import libcst as cst

    if isinstance(stmt, cst.FunctionDef):
        source = cst.Module(body=[stmt.with_changes(leading_lines=[])]).code
        found.defs = [d for d in found.defs if d.qualname != owner + stmt.name.value]
        found.defs.append(_Def(owner + stmt.name.value, source))  # a later block wins
    elif isinstance(stmt, cst.ClassDef) and not owner:
        for inner in stmt.body.body:
            _read_statement(module, inner, stmt.name.value + ".", found)
    elif not owner and _is_import(stmt):
        taken = _imports_of(stmt.body[0])
        found.imports.extend(taken)
        if len(taken) < _name_count(stmt.body[0]):
            line = module.code_for_node(stmt).strip()[:50]
            found.notes.append(
                f"ignored `{line}`: relative, star and `a.b as c` imports are not added"
            )
    elif not owner and not _is_noise(stmt):
        line = module.code_for_node(stmt).strip().split("\n")[0][:50]
        found.notes.append(f"ignored `{line}`: only functions and imports are taken")


def _is_import(stmt) -> bool:
    import libcst as cst

    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], (cst.Import, cst.ImportFrom))
    )


def _is_noise(stmt) -> bool:
    """A docstring, `...` or `pass` at module level: nothing worth telling the user about."""
    import libcst as cst

    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, cst.Pass)
        or (isinstance(s, cst.Expr) and isinstance(s.value, (cst.SimpleString, cst.Ellipsis)))
        for s in stmt.body
    )


def _name_count(node) -> int:
    import libcst as cst

    return 1 if isinstance(node.names, cst.ImportStar) else len(node.names)


def _imports_of(node) -> list[tuple[Any, str | None, str | None]]:  # libcst gives str | None
    """(module, name or None, alias) for each name; relative and star imports are dropped."""
    import libcst as cst
    from libcst.helpers import get_full_name_for_node

    if isinstance(node, cst.Import):
        return [
            (get_full_name_for_node(a.name), None, a.evaluated_alias)
            for a in node.names
            if a.asname is None or "." not in (get_full_name_for_node(a.name) or "")
        ]
    if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
        return []
    module = get_full_name_for_node(node.module)
    return [(module, a.evaluated_name, a.evaluated_alias) for a in node.names]


class _Mapper:
    def __init__(self, module_text: str, target: Suspect, offered: list[Suspect]):
        from heal_ls.locate import index_source

        self.text = module_text
        self.target = target
        self.index = index_source(module_text)
        self.qualnames = {f.qualname for f in self.index.functions}
        same_module = [s for s in offered if s.path == target.path]
        self.offered = {s.qualname: s for s in same_module if s.qualname != target.qualname}
        self.replaced: list[tuple[Suspect, str]] = []
        self.helpers: list[_Def] = []
        self.notes: list[str] = []
        self.top_names = _top_level_names(self.index.tree)

    def map(self, item: _Def) -> None:
        name = item.qualname.rsplit(".", 1)[-1]
        target = self.target
        suspect = None
        if item.qualname == target.qualname or (
            item.qualname == name and target.qualname.rsplit(".", 1)[-1] == name
        ):
            suspect = target  # a method may be written at column 0
        elif nested := self._nested(name):
            suspect = nested
        elif item.qualname in self.offered:
            suspect = self.offered[item.qualname]
        elif len(same := [s for q, s in self.offered.items() if q.endswith("." + name)]) == 1:
            suspect = same[0]
        if suspect is not None:
            self.replaced = [(s, d) for s, d in self.replaced if s.qualname != suspect.qualname]
            self.replaced.append((suspect, item.source))
        elif item.qualname in self.qualnames or _bare(item.qualname) in self.qualnames:
            self.notes.append(f"ignored `{item.qualname}`: it was not offered for change")
        elif name in self.top_names or name in self._class_names():
            self.notes.append(f"ignored `{item.qualname}`: the module already defines `{name}`")
        else:
            self.helpers = [h for h in self.helpers if h.qualname != item.qualname]
            self.helpers.append(_Def(name, item.source))

    def _nested(self, name: str) -> Suspect | None:
        from heal_ls.locate import suspect_for

        prefix = self.target.qualname + ".<locals>."
        inside = [
            f
            for f in self.index.functions
            if f.qualname.startswith(prefix)
            and f.name == name
            and self.target.start_line <= f.start_line <= self.target.end_line
        ]
        if not inside:
            return None
        node = min(inside, key=lambda f: f.qualname.count("."))
        return suspect_for(self.target.path, node, "nested in the target")

    def _class_names(self) -> set[str]:
        owner = self.target.qualname.rsplit(".", 1)[0] if "." in self.target.qualname else None
        return {f.name for f in self.index.functions if owner and f.qualname == f"{owner}.{f.name}"}


def _bare(qualname: str) -> str:
    return qualname.rsplit(".", 1)[-1]


def _top_level_names(tree: ast.Module | None) -> set[str]:
    names: set[str] = set()
    for stmt in tree.body if tree else []:
        for node in ast.walk(stmt) if not isinstance(stmt, _SCOPES) else [stmt]:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.alias):
                names.add((node.asname or node.name).split(".")[0])
        if isinstance(stmt, _SCOPES):
            names.add(stmt.name)
    return names


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
