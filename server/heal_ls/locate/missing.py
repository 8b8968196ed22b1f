"""`cannot import name 'x' from 'pkg.mod' (/w/pkg/mod.py)`: the module that lacks the name; and
`No module named 'x'` for an x that is not the workspace's: a dependency the test interpreter lacks;
`module 'pkg.mod' has no attribute 'x'`: the def of that module Python's traceback would suggest
("Did you mean: ...?", 3.10+), a def renamed or misspelt that the test never reached;
`'Set' object has no attribute 'isdisjoint'` on the test's own line: the class of ours that lacks
the member the test uses; so do Python's words for a missing dunder or setter there
(`unsupported operand type(s) for /: 'Path' and 'str'`, `unhashable type: 'OUI'`,
`property 'netmask' of 'IPNetwork' object has no setter`, `'AsyncClient' object does not
support the asynchronous context manager protocol`); a heal adds that member to the class
(heal/member.py).

The normal state of a test written first: it imports what does not exist yet. The failure points
at that module (line 1), the importing line stays the failing line, and no function holds the
bug, so the suspect is the module, with the reason and without a heal action.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from heal_ls.locate.calls import statement_parts
from heal_ls.locate.evidence import NamedClass, named_class, repr_class
from heal_ls.locate.family import ClassPlace, WorkspaceClasses
from heal_ls.locate.index import ClassNode, FunctionNode, ModuleIndex
from heal_ls.locate.state import missing_attribute, stored_on_self
from heal_ls.models import Failure, Frame, Suspect
from heal_ls.pysource.parse import name_of
from heal_ls.pysource.paths import TestFiles, is_workspace_file, relative_path
from heal_ls.pysource.source import SourceError, read_source, split_lines

# Python's own words (3.8+); "partially initialized module" (a circular import) is not a name
# the module lacks, so it does not match.
CANNOT_IMPORT = re.compile(
    r"^cannot import name '(?P<name>[^']+)' from '(?P<module>[^']+)' \((?P<path>[^()]+)\)"
)
NO_MODULE = re.compile(r"^No module named '(?P<module>[^']+)'")
NO_MODULE_ATTRIBUTE = re.compile(r"^module '(?P<module>[\w.]+)' has no attribute '(?P<name>\w+)'")
# a class of ours lacks a dunder or a setter, in Python's words (the setter's since 3.11)
UNSUPPORTED_OPERAND = re.compile(
    r"^unsupported operand type\(s\) for (?P<op>[^\s:]+)(?: or pow\(\))?:"
    r" '(?P<left>\w+)' and '(?P<right>\w+)'"
)
UNHASHABLE = re.compile(r"^unhashable type: '(?P<owner>\w+)'")
_NO_SETTER = re.compile(r"^property '(?P<name>\w+)' of '(?P<owner>\w+)' object has no setter")
# 3.8-3.10's words for it name no class (and 3.8-3.9 no attribute): the test's line says which
_CANNOT_SET = re.compile(r"^can't set attribute(?: '(?P<name>\w+)')?$")
# `with C():` of a class without the protocol's methods. 3.11+ name the class, and the exit
# method when only it is missing; 3.8-3.10 raise AttributeError naming the method alone (3.8
# looks `__aexit__` up before `__aenter__`), so the test's `with` statement says which class
CONTEXT_MANAGER = re.compile(
    r"^'(?P<owner>\w+)' object does not support the (?P<asynchronous>asynchronous )?context"
    r" manager protocol(?: \(missed (?P<missed>__a?exit__) method\))?$"
)
# what the test's check showed of an object by its class's default, and the member that shows
# it otherwise (`str()` falls back to `__repr__`)
_DEFAULT_REPR = re.compile(r"<[\w.]+ object at 0x[0-9a-fA-F]+>")
_SHOWN_BY = {"repr": "__repr__", "str": "__str__"}
_SHOWS_DEFAULT = {"__repr__": {"__repr__"}, "__str__": {"__repr__", "__str__"}}
_CONTEXT_METHOD = re.compile(r"^__a?(?:enter|exit)__$")
_DUNDERS = {  # an operator's method: `a / b` tries `a.__truediv__(b)`, then `b.__rtruediv__(a)`
    "+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod",
    "**": "pow", "@": "matmul", "<<": "lshift", ">>": "rshift", "&": "and", "|": "or", "^": "xor",
}  # fmt: skip
_SOURCE_DIRS = ("", "src")  # where a workspace's top-level packages sit
MODULE = "<module>"  # the qualname of a suspect that is a whole module, as frames name it


def missing_name(failure: Failure, tests: TestFiles, overlay: dict[str, str]):
    """(suspect, reason) when the failure is a name a workspace module lacks, else None."""
    root = tests.root
    found = (
        CANNOT_IMPORT.match(failure.message.strip()) if failure.exc_type == "ImportError" else None
    )
    if found is None:
        return None
    path = found["path"]
    if not os.path.isfile(path) or not is_workspace_file(path, root):
        return None
    name, module, rel = found["name"], found["module"], relative_path(path, root)
    frames = [f for f in failure.frames if is_workspace_file(f.path, root)]
    importer = next((f for f in reversed(frames) if f.path != path), None)
    where = f"{relative_path(importer.path, root)}:{importer.line}" if importer else "a test"
    reason = (
        f"{where} imports {name} from {module}, which {rel} does not define:"
        " write it there first (heal-ls heals functions that exist)"
    )
    if path in tests:
        reason = f"{where} imports {name} from {module}, which {rel} does not define"
    end_line, end_col = _end(overlay[path] if path in overlay else _read(path))
    suspect = Suspect(
        path=path,
        qualname=MODULE,
        start_line=1,
        start_col=0,
        end_line=end_line,
        end_col=end_col,
        reason=f"lacks the name {name} that {where} imports",
        def_line=1,
        focus_line=1,
    )
    return suspect, reason


@dataclass(frozen=True)
class LackingMember:
    """A class of ours that lacks the member a failing test uses."""

    path: str
    node: ClassNode
    short: str  # the suspect's reason: "lacks the method isdisjoint that t.py:7 calls"
    member: str  # what to add: "isdisjoint", "__hash__", "size.setter" (heal/member.py)


def lacking_member(
    failure: Failure, tests: TestFiles, index_of: Callable[[str], ModuleIndex | None]
) -> list[LackingMember]:
    """The class when the test's own line used a member its object lacks (`'Set' object
    has no attribute 'isdisjoint'`), the object's class is ours, and the test says it is a
    member to write: it calls it (`s.isdisjoint(t)`), or the class keeps the value under the
    private name a public accessor would read (`self._format`, read as `p.format`), or it
    reads it and no class of the object's family has it (`key.algorithm_name` off an
    `RSAKey(PKey)` whose siblings lack it too: the base first, family.py). No def of the
    class ran wrong: the fix adds the member. Not when a def of the class stores the
    attribute on `self` (it left it out on this path: ranker.lacking_attribute)."""
    frame = failure.frames[-1] if failure.frames else None
    if frame is None or frame.path not in tests:
        return []
    where = f"{relative_path(frame.path, tests.root)}:{frame.line}"
    protocol = _lacking_protocol(failure, where, tests, index_of)
    if protocol is not None:
        return [protocol]
    lacking = missing_attribute(failure)
    if lacking is None:
        return []
    owner, name = lacking
    found = _class_named(owner, failure.covered, tests, index_of)
    if found is None:
        return []
    path, index, node = found
    stored: set[str] = set()
    for member in index.functions:
        body = index.def_node(member.def_line)
        if member.qualname.rsplit(".", 1)[0] == node.qualname and body is not None:
            stored |= stored_on_self(body)
    parts = _test_line_parts(failure, index_of)
    if name in stored:
        return []
    if _calls_member(parts, name):
        short = f"lacks the method {name} that {where} calls"
    elif f"_{name}" in stored:
        short = f"keeps _{name} but has no {name}, which {where} reads"
    else:
        classes = WorkspaceClasses(failure, tests, index_of, frame.path)
        return _lacked_by_family(classes, found, name, f"{where} reads off", alone=False)
    return [LackingMember(path, node, short, name)]


def default_repr_lacking(
    failure: Failure, tests: TestFiles, index_of: Callable[[str], ModuleIndex | None]
) -> list[LackingMember]:
    """The class of ours whose object the test's failed check took `repr()` (or `str()`) of,
    when the text it got is Python's default (`<pkg.mod.NormalImport object at 0x...>`): the
    class and its bases of ours lack `__repr__` (`__str__`), which the fix adds; to the
    family's base first when no class of the family has it (family.py)."""
    frame = failure.frames[-1] if failure.frames else None
    if failure.exc_type.rsplit(".", 1)[-1] != "AssertionError" or frame is None:
        return []
    if frame.path not in tests:
        return []
    for part in _test_line_parts(failure, index_of):
        for call in (n for n in ast.walk(part) if isinstance(n, ast.Call)):
            member = _SHOWN_BY.get(name_of(call.func) or "")
            shown = _default_repr_of(call, frame)
            if member is None or shown is None or shown not in failure.message:
                continue
            classes = WorkspaceClasses(failure, tests, index_of, frame.path)
            place = classes.named(named_class(shown) or NamedClass(""))
            if place is None or _SHOWS_DEFAULT[member] & classes.lineage_members(place):
                continue  # a def of ours wrote that text
            where = f"{relative_path(frame.path, tests.root)}:{frame.line}"
            return _lacked_by_family(
                classes, place, member, f"{where} checks the text of", alone=True
            )
    return []


def _default_repr_of(call: ast.Call, frame: Frame) -> str | None:
    """The recorded value of the one local the call takes, when it is Python's default repr
    of an object (`<pkg.mod.C object at 0x7f...>`)."""
    if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], ast.Name):
        return None
    value = frame.locals.get(call.args[0].id, "")
    return value if _DEFAULT_REPR.fullmatch(value) else None


def _lacked_by_family(
    classes: WorkspaceClasses, place: ClassPlace, member: str, use: str, *, alone: bool
) -> list[LackingMember]:
    """The class lacking `member`, after the base of ours its family lacks it in, if any;
    without that base, the class `alone` or nothing (a read: a def of the class may have left
    the attribute out, ranker.lacking_attribute)."""
    path, _, node = place
    base = classes.lacking_base(place, member)
    short = f"lacks {member}, which {use} a {node.name}"
    if base is None:
        return [LackingMember(path, node, short, member)] if alone else []
    family = f"{short}, its subclass; no class of their family has it"
    return [
        LackingMember(base[0], base[2], family, member),
        LackingMember(path, node, short, member),
    ]


def _lacking_protocol(
    failure: Failure, where: str, tests: TestFiles, index_of: Callable[[str], ModuleIndex | None]
) -> LackingMember | None:
    """The class of ours that Python found without the dunder or setter the test's line needs:
    the left operand's class without `__truediv__` (else the right one's without
    `__rtruediv__`), a class without `__hash__` (one that defines `__eq__` has none), a property
    without a setter. Not when the class defines it: then a def of it ran wrong."""
    message = failure.message.strip()
    wanted: list[tuple[str, str, str]] = []  # (class, member, the suspect's reason)
    if (found := UNSUPPORTED_OPERAND.match(message)) and failure.exc_type == "TypeError":
        dunder = _DUNDERS.get(found["op"].removesuffix("="))
        use = f"for the {found['op']} that {where} uses"
        if dunder is not None:
            wanted.append((found["left"], f"__{dunder}__", f"lacks __{dunder}__ {use}"))
            wanted.append((found["right"], f"__r{dunder}__", f"lacks __r{dunder}__ {use}"))
    elif (found := UNHASHABLE.match(message)) and failure.exc_type == "TypeError":
        wanted.append((found["owner"], "__hash__", f"lacks __hash__, which {where} needs"))
    elif (setter := _no_setter(failure, index_of)) is not None:
        owner, name = setter
        short = f"lacks a setter for {name}, which {where} assigns"
        wanted.append((owner, f"{name}.setter", short))
    elif (managed := _not_a_context_manager(failure, index_of)) is not None:
        owners, member = managed
        statement = "async with" if member.startswith("__a") else "with"
        short = f"lacks {member} for the {statement} that {where} uses"
        wanted += [(owner, member, short) for owner in owners]
    for owner, member, short in wanted:
        named = _class_named(owner, failure.covered, tests, index_of)
        if named is not None and member not in _members(named[1], named[2]):
            return LackingMember(named[0], named[2], short, member)
    return None


def _no_setter(
    failure: Failure, index_of: Callable[[str], ModuleIndex | None]
) -> tuple[str, str] | None:
    """(class, property) an AttributeError says has no setter. 3.8-3.10 do not name the
    class (`can't set attribute 'netmask'`, 3.8-3.9 not the property either): then it is the
    one attribute the test's line assigns on a local (`net.netmask = 24`) and the class the
    local's recorded repr starts with (`IPNetwork('10.0.0.0/8')`), when there is just one."""
    if failure.exc_type.rsplit(".", 1)[-1] != "AttributeError":
        return None
    message = failure.message.strip()
    if (found := _NO_SETTER.match(message)) is not None:
        return found["owner"], found["name"]
    if (found := _CANNOT_SET.match(message)) is None:
        return None
    frame = failure.frames[-1]
    parts = _test_line_parts(failure, index_of)
    assigned = {
        (target.value.id, target.attr)
        for part in parts
        for node in ast.walk(part)
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and found["name"] in (None, target.attr)
    }
    owners = {(repr_class(frame.locals.get(local, "")), name) for local, name in assigned}
    if len(owners) != 1:
        return None
    owner, name = owners.pop()
    return (owner, name) if owner else None


def _not_a_context_manager(
    failure: Failure, index_of: Callable[[str], ModuleIndex | None]
) -> tuple[list[str], str] | None:
    """(the classes, the method) a `with` or `async with` on the test's line found missing.
    3.11+ name the class; 3.8-3.10 (AttributeError `__enter__`, `__aexit__`) do not: then the
    classes are those the statement's items build (`AsyncClient(...)`) or hold in a local
    whose recorded repr names its class (`with client:`)."""
    message = failure.message.strip()
    kind = failure.exc_type.rsplit(".", 1)[-1]
    if kind == "TypeError" and (found := CONTEXT_MANAGER.match(message)) is not None:
        prefix = "__a" if found["asynchronous"] else "__"
        return [found["owner"]], found["missed"] or f"{prefix}enter__"
    if kind != "AttributeError" or _CONTEXT_METHOD.match(message) is None:
        return None
    wanted = ast.AsyncWith if message.startswith("__a") else ast.With
    frame = failure.frames[-1]
    built = [
        _built_class(item.context_expr, frame)
        for part in _test_line_parts(failure, index_of)
        for statement in ast.walk(part)
        if isinstance(statement, wanted)  # its header on the line, not a `with` in its body
        and statement.lineno <= frame.line <= statement.body[0].lineno
        for item in statement.items
    ]
    return [owner for owner in built if owner], message


def _built_class(expression: ast.expr, frame: Frame) -> str | None:
    """The class name an expression builds (`C(...)`, `mod.C(...)`) or a local's recorded
    repr starts with (`client`: `<zeep.client.AsyncClient object at 0x...>`)."""
    if isinstance(expression, ast.Call):
        return name_of(expression.func)
    if isinstance(expression, ast.Name) and expression.id in frame.locals:
        return repr_class(frame.locals[expression.id])
    return None


def _test_line_parts(
    failure: Failure, index_of: Callable[[str], ModuleIndex | None]
) -> list[ast.AST]:
    """The parts of the statement the failing frame (the test's) is on."""
    frame = failure.frames[-1]
    test = index_of(frame.path)
    return statement_parts(test.tree.body, frame.line) if test and test.tree else []


def _members(index: ModuleIndex, node: ClassNode) -> set[str]:
    """The names the class's own body defines, a property's setter as `name.setter`."""
    names: set[str] = set()
    for member in index.functions:
        body = index.def_node(member.def_line)
        if member.qualname.rsplit(".", 1)[0] != node.qualname or body is None:
            continue
        names.add(body.name)
        names |= {
            f"{d.value.id}.{d.attr}"
            for d in body.decorator_list
            if isinstance(d, ast.Attribute) and isinstance(d.value, ast.Name)
        }
    return names


def _calls_member(parts: list[ast.AST], name: str) -> bool:
    """Whether the statement calls `.name` where it reads it first (`s.isdisjoint(t)`; not
    `p.format.format(x)`, which reads `p.format` and calls what that holds)."""
    reads = [
        n for p in parts for n in ast.walk(p) if isinstance(n, ast.Attribute) and n.attr == name
    ]
    first = [a for a in reads if not any(b is not a for b in reads if b in set(ast.walk(a.value)))]
    funcs = {id(n.func) for p in parts for n in ast.walk(p) if isinstance(n, ast.Call)}
    return bool(first) and all(id(a) in funcs for a in first)


def _class_named(
    owner: str, covered: list[str], tests: TestFiles, index_of: Callable[[str], ModuleIndex | None]
) -> tuple[str, ModuleIndex, ClassNode] | None:
    """The class of ours named `owner` in a module whose defs the test ran: the one holding a
    def that ran when the name is not unique there; None when that still leaves several."""
    ran: dict[str, set[int]] = {}
    for key in covered:
        path, _, line = key.rpartition(":")
        if line.isdigit() and is_workspace_file(path, tests.root) and path not in tests:
            ran.setdefault(path, set()).add(int(line))
    named: list[tuple[str, ModuleIndex, ClassNode]] = []
    for path in sorted(ran):
        index = index_of(path)
        if index is not None:
            named += [(path, index, node) for node in index.classes if node.name == owner]
    if len(named) > 1:
        named = [
            (path, index, node)
            for path, index, node in named
            if any(node.start_line <= line <= node.end_line for line in ran[path])
        ]
    return named[0] if len(named) == 1 else None


def _read(path: str) -> str:
    try:
        return read_source(path)
    except (OSError, SourceError):
        return ""


def _end(text: str) -> tuple[int, int]:
    lines = split_lines(text)
    if len(lines) > 1 and not lines[-1]:  # the break after the last line starts no line
        lines.pop()
    return len(lines), len(lines[-1])


def missing_dependency(failure: Failure, root: str) -> str | None:
    """A hint when the failure is an import of a module the workspace does not hold: most often
    the tests ran in an interpreter without the project's dependencies (heal-ls's own, say)."""
    found = NO_MODULE.match(failure.message.strip())
    if failure.exc_type != "ModuleNotFoundError" or found is None:
        return None
    top = found["module"].split(".")[0]
    if any(
        os.path.exists(os.path.join(root, base, top + ext))
        for base in _SOURCE_DIRS
        for ext in ("", ".py")
    ):
        return None  # a workspace module: a wrong import path, not a missing dependency
    return (
        f"{top} is not installed in the interpreter that ran the tests: if your project has its"
        " own environment, point heal-ls at its Python (--python PATH; in the editor heal.python)"
    )


def suggested_defs(
    failure: Failure, root: str, index_of: Callable[[str], ModuleIndex | None]
) -> tuple[str, str, list[FunctionNode]]:
    """(the missing name, the module's path, its module-level defs nearest to the name) when the
    failure is a workspace module lacking an attribute: the test called a def by a name it does
    not have (renamed on one side only, misspelt), so the def never ran and no recording lists
    it. Nearest as Python's own suggestion: fewest edits, within a third of the name's length;
    a class nearer, or nothing near: []."""
    found = (
        NO_MODULE_ATTRIBUTE.match(failure.message.strip())
        if failure.exc_type == "AttributeError"
        else None
    )
    if found is None:
        return "", "", []
    name, parts = found["name"], found["module"].split(".")
    for base in _SOURCE_DIRS:
        for path in (
            os.path.join(root, base, *parts) + ".py",
            os.path.join(root, base, *parts, "__init__.py"),
        ):
            index = index_of(path) if os.path.isfile(path) else None
            if index is not None:
                return name, path, _nearest(name, index)
    return name, "", []


def _nearest(name: str, index: ModuleIndex) -> list[FunctionNode]:
    top = [f for f in index.functions if f.qualname == f.name]
    classes = [c.name for c in index.classes if "." not in c.qualname]
    best = nearest_names(name, {f.name for f in top} | set(classes))
    return [f for f in top if f.name in best]


def nearest_names(name: str, names: set[str]) -> set[str]:
    """The `names` Python's traceback would suggest for `name` ("Did you mean: ...?"): those
    fewest edits away, within a third of its length; empty when none is that near."""
    limit = (len(name) + 3) // 3
    distances = {n: _edits(name, n) for n in names}
    best = min((d for d in distances.values() if d <= limit), default=None)
    return {n for n, d in distances.items() if d == best}


def _edits(a: str, b: str) -> int:
    """Levenshtein distance: insertions, deletions and substitutions, one each."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]
