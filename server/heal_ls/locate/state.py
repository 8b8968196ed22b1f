"""An object's state read for the ranker: which attributes a def stores on `self`, which it
reads off it, and the attribute a failing line found missing. A value stored on an object and
read later was made where it was stored: the reader that ranks first only used it."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from heal_ls.locate.blocks import BLOCK_BRANCHES, in_block
from heal_ls.models import Failure
from heal_ls.pysource.parse import Def, name_of, sole_return

CONSTRUCTORS = {"__new__", "__init__", "__post_init__"}
_MISSING_ATTRIBUTE = re.compile(r"^'(?P<owner>\w+)' object has no attribute '(?P<name>\w+)'")


def missing_attribute(failure: Failure) -> tuple[str, str] | None:
    """(class name, attribute) of `'vWeekday' object has no attribute 'sign'`, else None."""
    if failure.exc_type.rsplit(".", 1)[-1] != "AttributeError":
        return None
    return lacked(failure.message)


def lacked(message: str) -> tuple[str, str] | None:
    """(class name, attribute) that an AttributeError's message says an object lacks."""
    found = _MISSING_ATTRIBUTE.match(message.strip())
    return (found["owner"], found["name"]) if found else None


def stored_on_self(found: Def) -> set[str]:
    """The attributes the def assigns on `self` (`self.relative = ...`, `self.n += 1`, in
    `__new__` too, where `self` is the object `super().__new__` made)."""
    return set(written_on_self(found))


def held_locals(found: Def) -> set[str]:
    """The names the def assigns as its own locals (`command, uri, version = ...`)."""
    return {
        node.id
        for node in ast.walk(found)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }


def made_on_self(found: Def) -> set[str]:
    """The attributes the def computes and stores on `self` (`self.ords = {...}`), not those
    it only keeps as it was handed them (`self.envvar = envvar`, or a default in its place:
    `self.schemes = schemes or self.default_schemes`): a parameter stored as it came was made
    by the caller. Nor an empty container (`self.items = {}`): a start state other defs fill,
    nothing a reader can have been handed wrong."""
    params = _parameters(found)
    made = set()
    for node in ast.walk(found):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value:
            value = node.value
            if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
                value = value.values[0]  # `schemes or default`: the parameter, when given
            kept = isinstance(value, ast.Name) and value.id in params or _empty(value)
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            made |= {
                t.attr for t in targets if isinstance(t, ast.Attribute) and on_self(t) and not kept
            }
    return made


def computed_on_self(found: Def) -> set[str]:
    """`made_on_self`, and a parameter the def rebinds before it stores it (`namespaces =
    list(...)`, then `self.connection_namespaces = namespaces`): the def computed that value,
    the caller only started it."""
    params = _parameters(found)
    rebound = params & {
        node.id
        for node in ast.walk(found)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }
    computed = made_on_self(found)
    for node in ast.walk(found):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Name)
            and node.value.id in rebound
        ):
            computed |= {
                t.attr for t in node.targets if isinstance(t, ast.Attribute) and on_self(t)
            }
    return computed


def handed_self_after(found: Def, line: int) -> list[int]:
    """The lines, after `line`, where the def hands its object itself to another callable
    (`functools.update_wrapper(self, func)`): what that callable writes on it comes after a
    store at `line`. Not a base class's constructor (`Base.__init__(self, ...)`, `super(C,
    self)`): that goes on making how the object began."""
    return sorted(
        {
            node.lineno
            for node in ast.walk(found)
            if isinstance(node, ast.Call)
            and node.lineno > line
            and (name_of(node.func) or "").rsplit(".", 1)[-1] not in {"super", *CONSTRUCTORS}
            and any(
                isinstance(given, ast.Name) and given.id == "self"
                for given in [*node.args, *(k.value for k in node.keywords)]
            )
        }
    )


def assigned_in_branch(found: Def, attribute: str) -> list[int]:
    """The lines where the def assigns `self.<attribute>`, or a local it stores there as it
    is (`self.n_jobs = n_jobs`), inside one of its own branches (`if n_jobs is None: n_jobs =
    backend.default_n_jobs`): a value the branch the run took decided."""
    stored = {
        node.value.id
        for node in ast.walk(found)
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Name)
        and any(_self_attribute(t, attribute) for t in node.targets)
    }
    lines = set()
    for compound in ast.walk(found):
        for field in BLOCK_BRANCHES.get(type(compound).__name__, ()):
            for statement in getattr(compound, field):
                for node in ast.walk(statement):
                    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                        if any(
                            _self_attribute(t, attribute)
                            or isinstance(t, ast.Name)
                            and t.id in stored
                            for t in targets
                        ):
                            lines.add(node.lineno)
    return sorted(lines)


def _self_attribute(target: ast.expr, attribute: str) -> bool:
    return isinstance(target, ast.Attribute) and on_self(target) and target.attr == attribute


def stored_attribute(found: Def) -> str | None:
    """The attribute a `returns_stored` accessor returns (`return self._size`: `_size`)."""
    returned = sole_return(found)
    value = returned.value if returned is not None else None
    return value.attr if isinstance(value, ast.Attribute) and on_self(value) else None


def construction_only(methods: dict[str, Def], name: str) -> bool:
    """Is the method `name` of a class (`methods`: its defs by name) called, through `self`,
    only by its constructor and by helpers only the constructor calls (`__init__` ->
    `_parse_chunk_table` -> `_parse_oidf_chunk`)? What such a helper stores is how the object
    began, made from what the constructor was handed."""
    called_by: dict[str, set[str]] = {called: set() for called in methods}
    for caller, found in methods.items():
        for called in _self_calls(found) & set(methods):
            called_by[called].add(caller)
    building = set(CONSTRUCTORS)
    while grown := {m for m, by in called_by.items() if by and by <= building} - building:
        building |= grown
    return name in building - CONSTRUCTORS


def _self_calls(found: Def) -> set[str]:
    return {
        node.func.attr
        for node in ast.walk(found)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "self"
    }


def _parameters(found: Def) -> set[str]:
    arguments = found.args
    return {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}


def literal_tables(found: Def | None) -> set[str]:
    """The attributes the def stores on `self` as a table written out in the source (`self.ords
    = {"nen": "nens", "rde": "rdes"}`): a dict, list, tuple or set display of two entries or
    more, all literals."""
    tables = set()
    for node in ast.walk(found) if found is not None else []:
        if isinstance(node, ast.Assign) and _table(node.value):
            tables |= {t.attr for t in node.targets if isinstance(t, ast.Attribute) and on_self(t)}
    return tables


def _table(value: ast.expr) -> bool:
    if isinstance(value, ast.Dict):
        size = len(value.keys)
    elif isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        size = len(value.elts)
    else:
        return False
    try:
        ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return size >= 2


EMPTY_MAKERS = {"dict", "list", "set", "tuple", "frozenset", "OrderedDict", "defaultdict", "deque"}


def _empty(value: ast.expr) -> bool:
    """`{}`, `[]`, `()`, `set()`, `dict()`, `defaultdict(list)`: an empty start state."""
    if isinstance(value, ast.Dict):
        return not value.keys
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return not value.elts
    if not isinstance(value, ast.Call) or value.keywords:
        return False
    name = name_of(value.func)
    factory_only = name == "defaultdict" and len(value.args) == 1  # its default's type, no content
    return name in EMPTY_MAKERS and (not value.args or factory_only)


def literal_starts(found: Def) -> set[str]:
    """The attributes the def stores on `self` only as a single literal (`self.message = ''`,
    `self.count = 0`): a start value other methods change, not state it computed."""
    starts: dict[str, bool] = {}
    for node in ast.walk(found):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            literal = isinstance(node.value, ast.Constant) and not isinstance(node, ast.AugAssign)
            for target in targets:
                if isinstance(target, ast.Attribute) and on_self(target):
                    starts[target.attr] = starts.get(target.attr, True) and literal
    return {name for name, literal in starts.items() if literal}


def returns_stored(found: Def) -> bool:
    """Is the def's whole body (past its docstring) `return self.<attribute>`? Such an accessor
    (`def token(self): return self._token`) computes nothing: a wrong value came from whoever
    stored it."""
    return stored_attribute(found) is not None


def read_off_self(found: Def, block: int | None = None) -> set[str]:
    """The attributes the def reads off `self` (`self.ords[key]`; a method called on it too)
    in its recorded block starting at line `block`, branches nested in it included; anywhere
    in its body without a block."""
    return {
        node.attr
        for node in ast.walk(found)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Load)
        and on_self(node)
        and (block is None or in_block(found, node.lineno, block))
    }


def private_stores(nodes: Iterable[ast.AST]) -> set[str]:
    """The private attributes (`_index`, one leading underscore) stored on an object other than
    its own (`lines._index -= n`) among `nodes` (a def's walk: locate/cached.private_writes):
    state another class keeps for itself, changed from outside it."""
    return {
        node.attr
        for node in nodes
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id not in ("self", "cls")
        and is_private(node.attr)
    }


def written_outside(found: Def) -> dict[str, list[int]]:
    """The attributes the def stores on an object other than its own after it was made, and
    the lines it does it at: `field.type = ...`, or by name through a setattr
    (`_obj_setattr(field, "type", hint)`, the way a frozen object is changed)."""
    written: dict[str, list[int]] = {}
    for node in ast.walk(found):
        name = None
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            name = node.attr if _outside(node.value) else None
        elif isinstance(node, ast.Call) and _sets_by_name(node):
            held = node.args[1]
            if isinstance(held, ast.Constant) and isinstance(held.value, str):
                name = held.value
        if name is not None and isinstance(node, ast.expr):
            written.setdefault(name, []).append(node.lineno)
    return written


def written_on_self(found: Def) -> dict[str, list[int]]:
    """The attributes the def stores on `self`, and the lines it does it at."""
    written: dict[str, list[int]] = {}
    for node in ast.walk(found):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and on_self(node):
            written.setdefault(node.attr, []).append(node.lineno)
    return written


def _sets_by_name(call: ast.Call) -> bool:
    """`setattr(obj, name, value)` or a def named like it, on an object not its own."""
    named = (name_of(call.func) or "").endswith("setattr")
    return named and len(call.args) == 3 and _outside(call.args[0])


def _outside(target: ast.expr) -> bool:
    return isinstance(target, ast.Name) and target.id not in ("self", "cls")


def is_private(attribute: str) -> bool:
    """One leading underscore (`_index`): not a dunder, not a mangled name."""
    return attribute.startswith("_") and not attribute.startswith("__")


def on_self(node: ast.Attribute) -> bool:
    """Is the attribute one of `self` (`self.ptc`), not of another object?"""
    return isinstance(node.value, ast.Name) and node.value.id == "self"


def class_of(qualname: str) -> str | None:
    """The class a method's qualname names (`vWeekday.__new__` -> vWeekday), else None."""
    parts = qualname.split(".")
    return parts[-2] if len(parts) > 1 and parts[-2] != "<locals>" else None


def none_tested(test: ast.expr) -> str | None:
    """The local an `if` test finds None or empty (`x is None`, `not x`), else None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand.id if isinstance(test.operand, ast.Name) else None
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is):
        none = isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
        return test.left.id if none and isinstance(test.left, ast.Name) else None
    return None
