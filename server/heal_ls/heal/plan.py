"""Plan a model's answer as edits to one module, then prove them node by node.

A real fix may touch more than the target: a def nested in it, another offered suspect of the
same module, a new helper, an import. libcst parses the answer and adds imports (its
AddImportsVisitor, run on the module's import block only); positions come from the stdlib index
that edit.py already keeps, so a big module is never parsed by libcst. Anything else in the answer
is ignored, and the plan says so in `notes`.

    planned = plan_answer(answer, module_text, target, offered, allow_imports=True)
    planned.text, planned.edits (one per touched node, import block first), planned.notes

Three steps, in this order below: reading the answer (its statements, and which def of the
module each of its defs maps to), proving the edits (only the planned nodes and the import block
changed, the module compiles, names are kept), and planning them.
"""

from __future__ import annotations

import ast
import re
import textwrap
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import TYPE_CHECKING, Any

from heal_ls.heal.answer import AnswerError, ReadAnswer, check_complete, read_answer
from heal_ls.heal.safety import UnsafeCandidate, check_candidate, import_risk
from heal_ls.locate import index_source, suspect_for
from heal_ls.locate.refind import refind, respice
from heal_ls.models import NodeEdit, Suspect
from heal_ls.pysource.parse import DEF_TYPES, normalised
from heal_ls.pysource.source import line_starts
from heal_ls.pysource.splice import SpliceError, after_node, function_source, replacement

if TYPE_CHECKING:
    import libcst as cst

IMPORT_BLOCK = "<imports>"
# LIBCST: libcst is imported by the functions that use it, at the first answer planned: it takes
# 0.2 s of CPU to import (0.5 s with its codemods), more than `heal-ls fix` takes to start
# without it (0.18 s); a run that plans no answer never pays it.


class PlanError(Exception):
    """The answer cannot become a safe edit; str(err) says why, in words fit for the model."""


@dataclass
class Planned:
    text: str  # the whole module after the edits
    edits: list[NodeEdit]
    notes: list[str] = field(default_factory=list)  # what the answer held that was ignored
    key: str = ""  # formatting-independent form of the touched code, to share verifications

    @property
    def touched(self) -> list[str]:
        return [e.qualname for e in self.edits]


def plan_answer(
    answer: str | ReadAnswer,
    module_text: str,
    target: Suspect,
    offered: list[Suspect] | None = None,
    *,
    allow_imports: bool = True,
    allow_test_edits: bool = False,
) -> Planned | None:
    """The answer as a proven multi-node edit, or None when it is the plain shape (only the target
    def, nothing else to add), which the single-function splice handles with its own messages."""
    parsed = _parse_answer(answer)
    if parsed is None or not parsed.defs:
        return None
    mapper = _Mapper(module_text, target, offered or [])
    for item in parsed.defs:
        mapper.map(item)
    changed = [(s, d) for s, d in mapper.replaced if not _same(s, d, module_text)]
    if not changed and not mapper.helpers:
        return None
    edits = _node_edits(module_text, target, changed, mapper.helpers, mapper)
    imports = _needed_imports(module_text, parsed.imports, edits, allow_imports, mapper.notes)
    notes = parsed.notes + mapper.notes
    if [e.qualname for e in edits] in ([], [target.qualname]) and not imports and not notes:
        return None  # the single-function splice, with its own messages
    if not edits:
        raise PlanError("the answer changes none of the functions offered: " + "; ".join(notes))
    _check_rails(module_text, target.path, edits, allow_test_edits)
    if imports:
        edits.insert(0, _import_edit(module_text, imports))
    text = _apply(module_text, edits)
    prove(module_text, text, edits)
    key = "\n".join(f"{e.qualname}\n{_normal(e.text)}" for e in edits)
    return Planned(text, edits, notes, key)


# ---- reading the answer (libcst) ----------------------------------------------------------


@dataclass
class _Def:
    qualname: str  # as written in the answer: "name" or "Class.name"
    source: str  # dedented to column 0, decorators included


@dataclass
class _Answer:
    defs: list[_Def] = field(default_factory=list)
    imports: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _parse_answer(answer: str | ReadAnswer) -> _Answer | None:
    import libcst as cst  # lazy: libcst, see LIBCST

    found = _Answer()
    for block in read_answer(answer).blocks:
        if block.tree is None:
            continue
        try:
            module = cst.parse_module(block.code)
        except (SyntaxError, cst.ParserSyntaxError, RecursionError):
            continue
        for stmt in module.body:
            _read_statement(module, stmt, "", found)
    return found if found.defs or found.imports else None


def _read_statement(module: cst.Module, stmt: cst.CSTNode, owner: str, found: _Answer) -> None:
    import libcst as cst  # lazy: libcst, see LIBCST

    if isinstance(stmt, cst.FunctionDef):
        source = cst.Module(body=[stmt.with_changes(leading_lines=[])]).code
        found.defs = [d for d in found.defs if d.qualname != owner + stmt.name.value]
        found.defs.append(_Def(owner + stmt.name.value, source))  # a later block wins
    elif isinstance(stmt, cst.ClassDef) and not owner:
        for inner in stmt.body.body:
            _read_statement(module, inner, stmt.name.value + ".", found)
    elif not owner and (single := _the_import(stmt)) is not None:
        taken = _imports_of(single)
        found.imports.extend(taken)
        if len(taken) < _name_count(single):
            line = module.code_for_node(stmt).strip()[:50]
            found.notes.append(
                f"ignored `{line}`: relative, star and `a.b as c` imports are not added"
            )
    elif not owner and not _is_noise(stmt):
        line = module.code_for_node(stmt).strip().split("\n")[0][:50]
        found.notes.append(f"ignored `{line}`: only functions and imports are taken")


def _the_import(stmt: cst.CSTNode) -> cst.Import | cst.ImportFrom | None:
    """The import a line holds alone, else None."""
    import libcst as cst  # lazy: libcst, see LIBCST

    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        first = stmt.body[0]
        return first if isinstance(first, (cst.Import, cst.ImportFrom)) else None
    return None


def _is_noise(stmt: cst.CSTNode) -> bool:
    """A docstring, `...` or `pass` at module level: nothing worth telling the user about."""
    import libcst as cst  # lazy: libcst, see LIBCST

    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, cst.Pass)
        or (isinstance(s, cst.Expr) and isinstance(s.value, (cst.SimpleString, cst.Ellipsis)))
        for s in stmt.body
    )


def _name_count(node: cst.Import | cst.ImportFrom) -> int:
    import libcst as cst  # lazy: libcst, see LIBCST

    return 1 if isinstance(node.names, cst.ImportStar) else len(node.names)


def _imports_of(
    node: cst.Import | cst.ImportFrom,
) -> list[tuple[Any, str | None, str | None]]:  # libcst gives str | None
    """(module, name or None, alias) for each name; relative and star imports are dropped."""
    # lazy: libcst, see LIBCST
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


# ---- mapping defs to the module (stdlib index) --------------------------------------------


def _same(suspect: Suspect, source: str, module_text: str) -> bool:
    return _normal(source) == _normal(function_source(module_text, suspect))


def _normal(source: str) -> str:
    return normalised(source)


# ---- edits ----------------------------------------------------------------------------------


def _node_edits(
    module_text: str,
    target: Suspect,
    changed: list[tuple[Suspect, str]],
    helpers: list[_Def],
    mapper: _Mapper,
) -> list[NodeEdit]:
    edits: list[NodeEdit] = []
    for suspect, source in changed:
        try:
            check_complete(source, function_source(module_text, suspect))
            start, end, text = replacement(module_text, suspect, source)
        except (SpliceError, AnswerError, SyntaxError) as exc:
            raise PlanError(f"`{suspect.qualname}`: {exc}") from None
        edits.append(NodeEdit(suspect.qualname, start, end, text))
    edits = _drop_inner(edits, mapper.notes)
    used = _names_used([e.text for e in edits])
    prefix = target.qualname.rsplit(".", 1)[0] + "." if "." in target.qualname else ""
    for helper in helpers:
        if helper.qualname not in used:
            mapper.notes.append(f"ignored `{helper.qualname}`: nothing the fix changes uses it")
            continue
        try:
            check_complete(helper.source, None)
            at, text = after_node(module_text, target, helper.source)
        except (SpliceError, AnswerError, SyntaxError) as exc:
            raise PlanError(f"helper `{helper.qualname}`: {exc}") from None
        edits.append(NodeEdit(prefix + helper.qualname, at, at, text))
    return sorted(edits, key=lambda e: (e.start, e.end))


def _drop_inner(edits: list[NodeEdit], notes: list[str]) -> list[NodeEdit]:
    """A nested def the answer also sent inside its changed outer def: the outer one wins."""
    kept = []
    for edit in edits:
        outer = [o for o in edits if o is not edit and o.start <= edit.start and edit.end <= o.end]
        if outer:
            notes.append(f"ignored the separate `{edit.qualname}`: `{outer[0].qualname}` holds it")
        else:
            kept.append(edit)
    return kept


def _names_used(sources: list[str]) -> set[str]:
    names: set[str] = set()
    for source in sources:
        try:
            tree = ast.parse(_dedent_lines(source))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Attribute):
                names.add(node.attr)  # self.helper(...) for a new method
    return names


def _check_rails(
    module_text: str, path: str, edits: list[NodeEdit], allow_test_edits: bool
) -> None:
    for edit in edits:
        original = module_text[edit.start : edit.end]
        try:
            check_candidate(
                _dedent_lines(original), _dedent_lines(edit.text), path, allow_test_edits
            )
        except UnsafeCandidate as exc:
            raise PlanError(f"`{edit.qualname}`: {exc}") from None


# ---- imports ---------------------------------------------------------------------------------


Import = tuple[str, str | None, str | None]  # (module, name or None, alias)


def _needed_imports(
    module_text: str, imports: list[Import], edits: list[NodeEdit], allowed: bool, notes: list[str]
) -> list[Import]:
    """The answer's imports that a touched node uses and the module does not have yet."""
    have = _module_imports(module_text)
    used = _names_used([e.text for e in edits])
    needed = []
    for module, name, alias in dict.fromkeys(imports):
        shown = f"from {module} import {name}" if name else f"import {module}"
        bound = alias or name or module.split(".")[0]
        if (module, name, alias) in have or bound not in used:
            continue
        risk = import_risk(f"{module}.{name}" if name else module)
        if risk:
            raise PlanError(f"the answer imports `{risk[0]}` ({risk[1]}); fix it in plain Python")
        if not allowed:
            notes.append(f"ignored `{shown}`: adding imports is turned off (heal.allowImports)")
            continue
        needed.append((module, name, alias))
    return needed


def _module_imports(module_text: str) -> set[tuple[str, str | None, str | None]]:
    tree = index_source(module_text).tree
    found: set[tuple[str, str | None, str | None]] = set()
    for stmt in tree.body if tree else []:
        if isinstance(stmt, ast.Import):
            found.update((a.name, None, a.asname) for a in stmt.names)
        elif isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
            found.update((stmt.module, a.name, a.asname) for a in stmt.names)
    return found


def import_block_end(module_text: str) -> int:
    """Offset just past the line that ends the module's leading docstring and imports (0: none)."""
    tree = index_source(module_text).tree
    last = 0
    for i, stmt in enumerate(tree.body if tree else []):
        docstring = i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
        if not (docstring or isinstance(stmt, (ast.Import, ast.ImportFrom))):
            break
        last = stmt.end_lineno or stmt.lineno
    starts = line_starts(module_text)
    return starts[last] if last < len(starts) else len(module_text)


def _import_edit(module_text: str, imports: list[Import]) -> NodeEdit:
    # lazy: libcst, see LIBCST (its codemods: 0.3 s more, only when imports are added)
    import libcst as cst
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import AddImportsVisitor

    end = import_block_end(module_text)
    bom = "\ufeff" if module_text.startswith("\ufeff") else ""
    block = module_text[len(bom) : end]
    try:
        tree = cst.parse_module(block)
    except cst.ParserSyntaxError as exc:
        raise PlanError(f"the module's import block does not parse: {exc}") from None
    context = CodemodContext()
    for module, name, alias in imports:
        AddImportsVisitor.add_needed_import(context, module, name, alias)
    new = AddImportsVisitor(context).transform_module(tree).code
    newline = _newline_of(module_text)
    if not new.endswith(("\n", "\r")):
        new += newline
    if not block and module_text[len(bom) :].strip():
        new += newline  # imports above code that had none: one blank line between
    return NodeEdit(IMPORT_BLOCK, len(bom), end, new)


def _newline_of(text: str) -> str:
    found = re.search(r"\r\n|\r|\n", text)
    return found.group() if found else "\n"


# ---- applying ----------------------------------------------------------------------------------


def _apply(module_text: str, edits: list[NodeEdit]) -> str:
    out, at = [], 0
    for edit in edits:
        out.append(module_text[at : edit.start])
        out.append(edit.text)
        at = edit.end
    out.append(module_text[at:])
    return "".join(out)


def replan(before: str, current: str, edits: list[NodeEdit]) -> tuple[str, list[NodeEdit]]:
    """The same node edits on `current`, a text the user changed while the heal ran: each
    touched node (and the import block) is found where it now stands, its text unchanged, and
    the result is proven again against `current`. PlanError when a touched node changed."""
    old, new = before.splitlines(keepends=True), current.splitlines(keepends=True)
    old_starts, new_starts = _starts(old), _starts(new)
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    same = [(i1, i2, j1) for tag, i1, i2, j1, _ in matcher.get_opcodes() if tag == "equal"]
    moved = []
    for edit in edits:
        # the node's own lines; an insertion (a new helper) hangs on the line before it
        first_at = edit.start - 1 if edit.start == edit.end and edit.start > 0 else edit.start
        first = bisect_right(old_starts, first_at) - 1
        last = bisect_right(old_starts, max(first_at, edit.end - 1)) - 1
        block = next((b for b in same if b[0] <= first and last < b[1]), None)
        if block is None:
            what = "the imports" if edit.qualname == IMPORT_BLOCK else f"`{edit.qualname}`"
            raise PlanError(f"{what} changed while the heal ran")
        shift = new_starts[block[2] + first - block[0]] - old_starts[first]
        moved.append(NodeEdit(edit.qualname, edit.start + shift, edit.end + shift, edit.text))
    text = _apply(current, moved)
    prove(current, text, moved)
    return text, moved


def redo(
    current: str,
    before: str,
    after: str,
    suspect: Suspect,
    edits: list[NodeEdit] | None = None,
    touched: list[str] | None = None,
) -> tuple[str, list[NodeEdit]]:
    """(fixed text, node edits) of the fix `before` -> `after` for `current`, the text as it is
    now (the user may have typed while the heal ran): as computed when it is still `before`;
    else a planned fix (`edits`) re-planned where its touched nodes now stand, or the healed
    function spliced again into its unchanged def (no node edits then). PlanError says why not,
    in words for the user: a touched node changed, or the function is gone."""
    if current == before:
        return after, list(edits or [])
    if edits:
        try:
            return replan(before, current, edits)
        except PlanError as exc:
            being = ", ".join(touched or [suspect.qualname])
            raise PlanError(f"{exc} ({being} being healed); heal again") from None

    found = refind(suspect, after)
    if found is None:
        raise PlanError(f"{suspect.qualname} is not in the fixed text")
    try:
        return respice(current, suspect, before, function_source(after, found)), []
    except SpliceError as exc:
        why = f"{suspect.qualname} changed while it was being healed ({exc}); heal it again"
        raise PlanError(why) from None


def _starts(lines: list[str]) -> list[int]:
    starts, at = [], 0
    for line in lines:
        starts.append(at)
        at += len(line)
    return starts


# ---- proving the edits: only the planned nodes and the import block changed -----------------


def _dedent_lines(source: str) -> str:
    return textwrap.dedent(source.replace("\r\n", "\n").replace("\r", "\n").lstrip("\n"))


def prove(before: str, after: str, edits: list[NodeEdit]) -> None:
    """Every byte outside the touched nodes and the import block is identical; each touched node
    is one def that compiles and keeps its name; the import block only gained imports."""
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
    defs = [n for n in tree.body if isinstance(n, DEF_TYPES)]
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


def _bindings(stmts: Iterable[ast.stmt]) -> set[tuple[str, str, str | None]]:
    found: set[tuple[str, str, str | None]] = set()
    for stmt in stmts:
        if isinstance(stmt, ast.Import):
            found.update(("", a.name, a.asname) for a in stmt.names)
        elif isinstance(stmt, ast.ImportFrom):
            found.update((f"{'.' * stmt.level}{stmt.module}", a.name, a.asname) for a in stmt.names)
    return found
