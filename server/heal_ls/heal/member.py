"""Heal a class that lacks the member a failing test uses: the model writes only that member
(a method, a dunder, a property's setter), and the edit inserts it at the end of the class
body, nothing else.

    planned = plan_member(answer, module_text, cls, "__hash__")   # or "netmask.setter"
    planned.text, planned.edits (one insertion), planned.notes

The answer may hold the member alone or the class around it; the class's other members may come
back unchanged (ignored), never changed, and no other new member may come with it. The result is
proven on the syntax trees: the module after the edit, with the new member taken out again, is
the module before, statement for statement; and on the text: the only new characters are the
inserted ones, inside the class node.
"""

from __future__ import annotations

import ast
import textwrap
import tokenize

from heal_ls.heal.answer import read_answer
from heal_ls.heal.guards import Guards
from heal_ls.heal.plan import PlanError, Planned
from heal_ls.heal.safety import UnsafeCandidate, check_candidate
from heal_ls.locate import index_source, suspect_for
from heal_ls.models import NodeEdit, Suspect
from heal_ls.pysource.indent import leading_space, reindent
from heal_ls.pysource.parse import DEF_TYPES, Def, first_line, normalised
from heal_ls.pysource.source import LINE_BREAK, line_at, line_starts


def plan_member(
    answer: str,
    module_text: str,
    cls: Suspect,
    member: str,
    *,
    allow_test_edits: bool = False,
) -> Planned:
    """The answer's new `member` of the class `cls` names, inserted and proven; PlanError (in
    words fit for the model) when the answer is anything more or less."""
    tree = _parse(module_text, "the module")
    node = class_node(tree, cls)
    source = _member_source(answer, node, member)
    at, text = _insertion(module_text, node, source)
    after = module_text[:at] + text + module_text[at:]
    name = member.split(".")[0]
    edit = NodeEdit(f"{cls.qualname}.{name}", at, at, text)
    prove_member(module_text, after, cls, edit)
    # what the class already uses, the new member may use too; defining the dunder the failure
    # names is the fix itself, any other special method still a rail
    vouched = frozenset({f"def {name}"} if name.startswith("__") else ())
    try:
        check_candidate(_class_text(module_text, node), source, cls.path, allow_test_edits, vouched)
    except UnsafeCandidate as exc:
        raise PlanError(f"`{cls.qualname}.{name}`: {exc}") from None
    return Planned(after, [edit], key=normalised(source))


def class_node(tree: ast.Module, cls: Suspect) -> ast.ClassDef:
    """The class the suspect names, found by position (its first line) and checked by name."""
    name = cls.qualname.rsplit(".", 1)[-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and first_line(node) == cls.start_line:
            if node.name != name:
                raise PlanError(f"line {cls.start_line} holds class `{node.name}`, not `{name}`")
            return node
    raise PlanError(f"no class starts at line {cls.start_line} any more")


def prove_member(before: str, after: str, cls: Suspect, edit: NodeEdit) -> None:
    """Only an insertion inside the class node: the text outside it is the original, and the
    module's tree without the new member is the original's (every statement of the module and
    of the class unchanged); the module compiles."""
    if edit.start != edit.end or after != before[: edit.start] + edit.text + before[edit.end :]:
        raise PlanError("the edit is not one insertion")
    old_tree, new_tree = _parse(before, "the module"), _parse(after, "the module after the edit")
    old_class, new_class = class_node(old_tree, cls), class_node(new_tree, cls)
    starts = line_starts(before)
    last = old_class.end_lineno or old_class.lineno
    end = starts[last] if last < len(starts) else len(before)
    if not starts[first_line(old_class) - 1] < edit.start <= end:
        raise PlanError("the new member is not inside the class")
    added = [
        s for s in new_class.body if _stmt_key(s) not in {_stmt_key(o) for o in old_class.body}
    ]
    name = edit.qualname.rsplit(".", 1)[-1]
    if len(added) != 1 or not isinstance(added[0], DEF_TYPES) or added[0].name != name:
        raise PlanError(f"the edit adds more to `{cls.qualname}` than the member `{name}`")
    new_class.body.remove(added[0])
    if ast.dump(new_tree) != ast.dump(old_tree):
        raise PlanError("the edit changed more than the one new member of the class")
    try:
        compile(after, "<heal>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise PlanError(f"the module does not compile after the edit: {exc}") from None


def _stmt_key(stmt: ast.stmt) -> str:
    return ast.dump(stmt)  # without positions: a statement moved down by the insertion is equal


def _member_source(answer: str, node: ast.ClassDef, member: str) -> str:
    """The one def of the answer that is the wanted member, checked against the rest."""
    name, _, role = member.partition(".")
    existing = {_role_key(d): ast.dump(d) for d in node.body if isinstance(d, DEF_TYPES)}
    found: list[tuple[str, Def]] = []
    for block in read_answer(answer).blocks:
        if block.tree is None:
            continue
        body = list(block.tree.body)
        for stmt in list(body):
            if isinstance(stmt, ast.ClassDef) and stmt.name == node.name:
                body.remove(stmt)
                body += [s for s in stmt.body if isinstance(s, DEF_TYPES)]
        for stmt in body:
            if isinstance(stmt, DEF_TYPES):
                found.append((block.code, stmt))
    wanted = [(code, d) for code, d in found if d.name == name and _role(d) == role]
    for _, other in found:
        key = _role_key(other)
        if any(other is d for _, d in wanted):
            continue
        if key in existing and existing[key] == ast.dump(other):
            continue  # an existing member sent back unchanged
        what = "changes" if key in existing else "adds"
        raise PlanError(
            f"the answer {what} `{node.name}.{other.name}`: write only the new member `{member}`"
        )
    if not wanted:
        raise PlanError(f"the answer holds no def of the new member `{member}`")
    if len(wanted) > 1:
        raise PlanError(f"the answer holds {len(wanted)} defs of `{member}`: send one")
    code, chosen = wanted[0]
    if _role_key(chosen) in existing:
        raise PlanError(f"`{node.name}` already has `{member}`")
    lines = code.split("\n")[first_line(chosen) - 1 : chosen.end_lineno]
    return textwrap.dedent("\n".join(lines))


def _role(node: Def) -> str:
    """ "setter" for `@name.setter` (so for getter and deleter), else ""."""
    for d in node.decorator_list:
        if (
            isinstance(d, ast.Attribute)
            and isinstance(d.value, ast.Name)
            and d.value.id == node.name
        ):
            return d.attr
    return ""


def _role_key(node: Def) -> str:
    return f"{node.name}.{_role(node)}" if _role(node) else node.name


def _insertion(module_text: str, node: ast.ClassDef, source: str) -> tuple[int, str]:
    """(offset, text): the member at the class body's indentation after its last line, one
    blank line apart, in the module's line endings."""
    starts = line_starts(module_text)
    body_line = line_at(module_text, starts, node.body[0].lineno)
    base = leading_space(body_line)
    class_base = leading_space(line_at(module_text, starts, node.lineno))
    unit = base[len(class_base) :] or "    "
    try:
        lines = reindent(source.rstrip("\n") + "\n", base.replace("\f", ""), unit)
    except (tokenize.TokenError, SyntaxError) as err:
        raise PlanError(f"the new member cannot be tokenized: {err}") from None
    ending = LINE_BREAK.search(module_text, starts[(node.end_lineno or node.lineno) - 1])
    nl = ending.group() if ending else "\n"
    while lines and not lines[-1].strip():
        lines.pop()
    if ending is None:  # the class ends the file without a line break
        return len(module_text), nl + nl + nl.join(lines).rstrip(" \t")
    return ending.end(), nl + nl.join(lines) + nl


def _class_text(module_text: str, node: ast.ClassDef) -> str:
    lines = module_text.splitlines()[first_line(node) - 1 : node.end_lineno]
    return textwrap.dedent("\n".join(lines))


def _parse(text: str, what: str) -> ast.Module:
    try:
        return ast.parse(text.lstrip("\ufeff"))
    except (SyntaxError, ValueError) as exc:
        raise PlanError(f"{what} does not parse: {exc}") from None


def class_source(module_text: str, cls: Suspect) -> str:
    """The class as it stands (what a member heal starts from, as a function heal's def)."""
    return _class_text(module_text, class_node(_parse(module_text, "the module"), cls))


def methods_of(module_text: str, cls: Suspect) -> list[Suspect]:
    """The class's own defs as suspects: the tests that ran any of them guard the new member."""
    index = index_source(module_text)
    return [
        suspect_for(cls.path, f, f"a method of {cls.qualname}")
        for f in index.functions
        if f.qualname.rsplit(".", 1)[0] == cls.qualname
    ]


def ran_a_method(guards: Guards) -> list[str]:
    """The guard tests of any method of the class, each once, in the order found."""
    tests: list[str] = []
    for found in [guards.tests, *guards.of.values()]:
        tests += [t for t in found if t not in tests]
    return tests
