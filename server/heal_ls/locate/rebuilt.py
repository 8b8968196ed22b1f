"""`BBAN.__new__() missing 1 required positional argument: 'value'` while `copy.deepcopy(iban)`
or `pickle.loads(pickle.dumps(bban))` rebuilt an object: Python's copy machinery chose the
arguments (the object's reduce protocol: `str.__getnewargs__` gives one value, `BBAN.__new__`
takes two), so the refusing constructor's signature is not what is wrong. The class of the
copied object lacks the method that says how to rebuild it (`__deepcopy__`, `__copy__`,
`__reduce__`); it and its bases of ours are the suspects, each healable by adding that method.

The round trip is read from the record: a `copy.py`/`copyreg.py`/`pickle.py` frame made the
refused call, or a `__deepcopy__`/`__copy__`/`__reduce__` of ours did, or the test's own line did
and calls `copy.deepcopy`/`copy.copy`/`pickle.loads`/`pickle.dumps` (the C pickler leaves no
frame) without calling the refusing class itself. The copied object's class comes from the
test's locals handed to that call (`bban: <BBAN=...>`), the rebuilding method's `self`, and the
refused class (the message's `BBAN.__new__`, a metaclass `__call__`'s `cls: <class 'trio.Cancelled'>`).
"""

from __future__ import annotations

import ast
import os

from heal_ls.locate.calls import statement_parts
from heal_ls.locate.evidence import NamedClass, named_class, signature_error_callee
from heal_ls.locate.family import ClassPlace, IndexOf, WorkspaceClasses, class_def, own_members
from heal_ls.locate.missing import LackingMember
from heal_ls.models import Failure, Frame
from heal_ls.pysource.parse import name_of
from heal_ls.pysource.paths import TestFiles, is_workspace_file, relative_path

# The stdlib modules that rebuild an object (copyreg's `__newobj__` calls `cls.__new__`)
COPY_MACHINERY = ("copy.py", "copyreg.py", "pickle.py")
# The round trips a test's line may call, and the member a class adds to say how it is rebuilt
ROUND_TRIPS = {
    "copy.deepcopy": "__deepcopy__",
    "copy.copy": "__copy__",
    **{f"pickle.{name}": "__reduce__" for name in ("dumps", "loads", "dump", "load")},
}
# A method of ours that rebuilds its object, making the refused call, by the member it stands for
REBUILDERS = {
    "__deepcopy__": "__deepcopy__",
    "__copy__": "__copy__",
    "__reduce__": "__reduce__",
    "__reduce_ex__": "__reduce__",
}
_PICKLED = {"__reduce__", "__reduce_ex__", "__getnewargs__", "__getnewargs_ex__"}
# A class defining one of these already says how it is rebuilt: then a def of it ran wrong
SAYS_HOW = {
    "__deepcopy__": {"__deepcopy__", *_PICKLED},
    "__copy__": {"__copy__", *_PICKLED},
    "__reduce__": _PICKLED,
}
_WORDS = {"__deepcopy__": "copy.deepcopy", "__copy__": "copy.copy", "__reduce__": "pickle"}
CONSTRUCTORS = ("__new__", "__init__")


def rebuilt_classes(failure: Failure, tests: TestFiles, index_of: IndexOf) -> list[LackingMember]:
    """The classes of ours lacking the method that says how copy or pickle rebuilds their
    objects, when a constructor of ours refused the call that rebuilt one: the copied object's
    class, then the refused class, each followed by its bases of ours; [] otherwise."""
    refusal = _refusal(failure, tests, index_of)
    test = next((f for f in reversed(failure.frames) if f.path in tests), None)
    if refusal is None or test is None:
        return []
    refused, refused_class, maker = refusal
    calls = _round_trip_calls(test, index_of)
    member = _member(failure, maker, tests, calls, refused_class)
    if member is None:
        return []
    named = [
        found
        for _, call in calls
        for name in _names_handed(call)
        if (found := named_class(test.locals.get(name, "")))
    ]
    if maker.function in REBUILDERS and (found := named_class(maker.locals.get("self", ""))):
        named.append(found)
    named += [refused_class] if refused_class is not None else []
    where = f"{relative_path(test.path, tests.root)}:{test.line}"
    reason = (
        f"lacks {member}, so the {_WORDS[member]} at {where} rebuilt its object through a"
        f" call {refused} refused"
    )
    classes = WorkspaceClasses(failure, tests, index_of, test.path)
    listed: list[LackingMember] = []
    for wanted in named:
        place = classes.named(wanted)
        if place is not None:
            _list_lacking(classes, place, member, reason, listed)
    return listed


def _refusal(
    failure: Failure, tests: TestFiles, index_of: IndexOf
) -> tuple[str, NamedClass | None, Frame] | None:
    """(the refusing def, its class, the frame that made the refused call) when a constructor
    of ours refused a call with a TypeError: a signature error naming `C.__new__`/`C.__init__`
    (it never ran: the innermost frame made the call), or one raised in a `__new__`/`__init__`
    of ours or a metaclass's `__call__` (its `cls` local names the class called)."""
    frames = failure.frames
    if failure.exc_type.rsplit(".", 1)[-1] != "TypeError" or not frames:
        return None
    named = signature_error_callee(failure)
    if named is not None:
        owner, _, method = named.rpartition(".")
        if method not in CONSTRUCTORS:
            return None
        return named, NamedClass(owner.rsplit(".", 1)[-1]) if owner else None, frames[-1]
    last = frames[-1]
    if len(frames) < 2 or last.path in tests or not is_workspace_file(last.path, tests.root):
        return None
    if last.function not in (*CONSTRUCTORS, "__call__"):
        return None
    called = last.locals.get("cls", "")
    index = index_of(last.path)
    node = index.function_for_frame(last.line, last.function) if index else None
    if node is None:
        return None
    if called.startswith("<class '"):  # a metaclass's __call__, a __new__: the class called
        return node.qualname, named_class(called), frames[-2]
    if last.function == "__call__":  # an instance's __call__ constructs nothing
        return None
    owner = node.qualname.rsplit(".", 1)[0].rsplit(".", 1)[-1]
    return node.qualname, NamedClass(owner), frames[-2]


def _member(
    failure: Failure,
    maker: Frame,
    tests: TestFiles,
    calls: list[tuple[str, ast.Call]],
    refused: NamedClass | None,
) -> str | None:
    """The member a class adds to say how the round trip that made the refused call rebuilds
    it, when copy or pickle made it: a stdlib frame of theirs (the outermost says which), a
    rebuilding method of ours, or the test's own line calling one (and not the refused class:
    then the test's own call was refused, not a rebuilt object's)."""
    machinery = [
        f
        for f in failure.frames
        if os.path.basename(f.path) in COPY_MACHINERY
        and f.path not in tests
        and not is_workspace_file(f.path, tests.root)
    ]
    if maker in machinery:
        outer = machinery[0]
        if os.path.basename(outer.path) == "copy.py":
            return "__copy__" if outer.function == "copy" else "__deepcopy__"
        return ROUND_TRIPS[calls[0][0]] if calls else "__reduce__"
    if maker.path not in tests:
        return REBUILDERS.get(maker.function) if is_workspace_file(maker.path, tests.root) else None
    if not calls or _calls_class(refused, [call for _, call in calls]):
        return None
    return ROUND_TRIPS[calls[0][0]]


def _round_trip_calls(test: Frame, index_of: IndexOf) -> list[tuple[str, ast.Call]]:
    """The copy/pickle calls of the test's failing statement, outermost first, each with the
    name it resolves to (`copy.deepcopy` for `deepcopy` imported from `copy`)."""
    index = index_of(test.path)
    if index is None or index.tree is None:
        return []
    aliases = _imported_names(index.tree)
    parts = statement_parts(index.tree.body, test.line)
    calls = [n for p in parts for n in ast.walk(p) if isinstance(n, ast.Call)]
    found = []
    for call in calls:
        head, _, rest = _dotted(call.func).partition(".")
        full = f"{aliases.get(head, head)}.{rest}" if rest else aliases.get(head, head)
        if full in ROUND_TRIPS:
            found.append((full, call))
    return found


def _dotted(node: ast.expr) -> str:
    """The dotted name a reference spells (`copy.deepcopy`), else ""."""
    if isinstance(node, ast.Attribute):
        owner = _dotted(node.value)
        return f"{owner}.{node.attr}" if owner else ""
    return node.id if isinstance(node, ast.Name) else ""


def _imported_names(tree: ast.Module) -> dict[str, str]:
    """The names the module binds by import to what they import (`dc` -> `copy.deepcopy`)."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.asname: a.name for a in node.names if a.asname}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found |= {a.asname or a.name: f"{node.module}.{a.name}" for a in node.names}
    return found


def _names_handed(call: ast.Call) -> list[str]:
    """The local names in a round trip's arguments (`pickle.loads(pickle.dumps(x))`: x)."""
    arguments = [*call.args, *(k.value for k in call.keywords)]
    return [n.id for a in arguments for n in ast.walk(a) if isinstance(n, ast.Name)]


def _calls_class(refused: NamedClass | None, calls: list[ast.Call]) -> bool:
    """Does a round trip's argument call the refused class itself (`copy.copy(C(1, 2))`)?"""
    if refused is None:
        return False
    arguments = [a for call in calls for a in [*call.args, *(k.value for k in call.keywords)]]
    called = [n for a in arguments for n in ast.walk(a) if isinstance(n, ast.Call)]
    return any((name_of(c.func) or "").rsplit(".", 1)[-1] == refused.name for c in called)


def _list_lacking(
    classes: WorkspaceClasses,
    place: ClassPlace,
    member: str,
    reason: str,
    listed: list[LackingMember],
):
    """List the class unless it says how it is rebuilt (then a def of it ran wrong), then
    its bases of ours the same way."""
    path, _, node = place
    if any(c.path == path and c.node == node for c in listed):
        return
    if class_def(place[1], node) is None or SAYS_HOW[member] & own_members(place):
        return
    listed.append(LackingMember(path, node, reason, member))
    for base in classes.bases(place):
        _list_lacking(classes, base, member, f"{reason} (a base of {node.name})", listed)
