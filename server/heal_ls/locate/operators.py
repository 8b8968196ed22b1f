"""The dunders a failing line's operators call, and which defs of ours those are.

`(cmd & TEE(retcode=None))[0] == 1` calls `type(TEE(...)).__rand__` (the left operand's class
has no `__and__`), `(U_(unit) == string) is expected` calls the unit's `__eq__`: calls of the
line's own code that no name on it spells and no frame shows. Each operator names the dunder
and the operand whose class dispatches it; the class comes from the failure's evidence: the
operand's own local in the failing frame (its repr), the object a module-level name holds
(`TEE = _TEE()`), a class called by name, else the objects pytest's explanation shows. A dunder
resolves to the defs of that name of the class or of one of its bases (`class Unit(...,
PlainRegistry.Unit)`, with `PlainRegistry.Unit = PlainUnit`), never to every def of that name:
an `__eq__` that ran while pytest built its explanation (`__repr__`, comparing items for the
diff) is no call of the line.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass

from heal_ls.locate.index import ModuleIndex
from heal_ls.pysource.parse import name_of

_BINARY = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.MatMult: "matmul",
    ast.Div: "truediv",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
    ast.Pow: "pow",
    ast.LShift: "lshift",
    ast.RShift: "rshift",
    ast.BitAnd: "and",
    ast.BitOr: "or",
    ast.BitXor: "xor",
}
# a comparison calls the left operand's dunder, then the right one's reflection
_COMPARED = {
    ast.Eq: ("__eq__", "__eq__"),
    ast.NotEq: ("__ne__", "__ne__"),
    ast.Lt: ("__lt__", "__gt__"),
    ast.Gt: ("__gt__", "__lt__"),
    ast.LtE: ("__le__", "__ge__"),
    ast.GtE: ("__ge__", "__le__"),
}
_UNARY: dict[type[ast.unaryop], tuple[str, ...]] = {
    ast.USub: ("__neg__",),
    ast.UAdd: ("__pos__",),
    ast.Invert: ("__invert__",),
}
_UNARY[ast.Not] = ("__bool__", "__len__")  # truth: __bool__, else __len__
_BUILTINS: dict[str, tuple[str, ...]] = {
    "bool": ("__bool__", "__len__"),
    "abs": ("__abs__",),
    "hash": ("__hash__",),
}
_BUILTINS |= {"int": ("__int__",), "float": ("__float__",), "iter": ("__iter__",)}
_BUILTINS |= {"next": ("__next__",), "reversed": ("__reversed__",)}

# How a repr names its object's class: `<pkg.mod.Name object at 0x..>`, `<Name('m')>`,
# `Name(a=1)`, `<Name ...>`
_REPR_CLASS = re.compile(r"<(?:[\w.]*\.)?(\w+) object at 0x|<(\w+)[( ]|\b(\w+)\(")


@dataclass(frozen=True)
class OperatorCall:
    """One dunder an operator of the line calls, and the operand whose class holds it."""

    dunder: str
    operand: ast.expr


def operator_calls(parts: Iterable[ast.AST]) -> list[OperatorCall]:
    """The dunders the operators in these nodes call (a statement's parts: `statement_parts`),
    in source order, each with the operand whose class dispatches it."""
    found: list[OperatorCall] = []
    for node in (n for part in parts for n in ast.walk(part)):
        found += _called_by(node)
    return found


def _called_by(node: ast.AST) -> list[OperatorCall]:
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        name = _BINARY[type(node.op)]
        return [OperatorCall(f"__{name}__", node.left), OperatorCall(f"__r{name}__", node.right)]
    if isinstance(node, ast.Compare):
        found = []
        for left, op, right in zip([node.left, *node.comparators], node.ops, node.comparators):
            if type(op) in _COMPARED:
                own, reflected = _COMPARED[type(op)]
                found += [OperatorCall(own, left), OperatorCall(reflected, right)]
        return found
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return [OperatorCall(d, node.operand) for d in _UNARY[type(node.op)]]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1:
        return [OperatorCall(d, node.args[0]) for d in _BUILTINS.get(node.func.id, ())]
    return []


def repr_classes(text: str) -> list[str]:
    """The class names a repr (or pytest's explanation) shows objects of, in order."""
    return list(dict.fromkeys(next(g for g in m.groups() if g) for m in _REPR_CLASS.finditer(text)))


class ClassTable:
    """The classes of some modules by name: each one's bases (a base named through a class's
    alias, `PlainRegistry.Unit` with `Unit: TypeAlias = PlainUnit` in PlainRegistry's body, is
    the aliased class) and the module-level names holding an instance (`TEE = _TEE()`).
    By name only: two classes of one name are one here (the aliases of the last one, in source
    order, the modules' order). Built from the modules' indexes, which hold their classes: an
    ast.walk of every module the failing test ran took 20-70 ms of a check."""

    def __init__(self, modules: Iterable[ModuleIndex]):
        classes: list[ast.ClassDef] = []
        self.instances: dict[str, str] = {}  # module-level name -> the class it holds one of
        for module in modules:
            if module.tree is None:
                continue
            classes += module.class_defs
            for statement in module.tree.body:
                held = _instance_assigned(statement)
                if held is not None:
                    self.instances.setdefault(*held)
        self.aliases = {c.name: _class_aliases(c) for c in classes}
        self.bases: dict[str, list[str]] = {}
        for cls in classes:
            self.bases.setdefault(cls.name, [])
            self.bases[cls.name] += [b for b in map(self._base_name, cls.bases) if b]
        self.instances = {k: v for k, v in self.instances.items() if v in self.bases}

    def _base_name(self, base: ast.expr) -> str | None:
        if isinstance(base, ast.Subscript):  # Generic[T], Base[int]
            base = base.value
        if isinstance(base, ast.Attribute) and isinstance(base.value, (ast.Name, ast.Attribute)):
            owner = name_of(base.value)
            aliased = self.aliases.get(owner or "", {}).get(base.attr)
            if aliased is not None:
                return aliased
        return name_of(base)

    def lineage(self, names: Iterable[str]) -> set[str]:
        """These classes and all their bases the table knows, by name."""
        found: set[str] = set()
        todo = [n for n in names if n in self.bases]
        while todo:
            name = todo.pop()
            if name not in found:
                found.add(name)
                todo += [b for b in self.bases.get(name, []) if b in self.bases]
        return found

    def classes_of(self, operand: ast.expr, locals_: dict[str, str], shown: list[str]) -> set[str]:
        """The classes of ours the operand's object may be of, by the evidence: its local's
        repr in the failing frame, the instance a module-level name holds, a class it calls
        (or an instance of one: a modifier's `__call__` makes another of its kind), else the
        objects pytest's explanation shows (`shown`)."""
        if isinstance(operand, ast.Constant):
            return set()
        target = operand.func if isinstance(operand, ast.Call) else operand
        name = name_of(target)
        if isinstance(target, ast.Name) and name in locals_:
            return self.lineage(repr_classes(locals_[name])[:1])
        if name in self.instances:
            return self.lineage([self.instances[name]])
        if isinstance(operand, ast.Call) and name in self.bases:
            return self.lineage([name])
        return self.lineage(shown)


def _instance_assigned(statement: ast.stmt) -> tuple[str, str] | None:
    """(name, class) of a module-level `NAME = Cls(...)`."""
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return None
    target, value = statement.targets[0], statement.value
    if isinstance(target, ast.Name) and isinstance(value, ast.Call):
        cls = name_of(value.func)
        return (target.id, cls) if cls else None
    return None


def _class_aliases(cls: ast.ClassDef) -> dict[str, str]:
    """The names a class body binds to another class (`Unit: TypeAlias = PlainUnit`)."""
    found = {}
    for statement in cls.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        else:
            continue
        aliased = name_of(value) if isinstance(value, (ast.Name, ast.Attribute)) else None
        if isinstance(target, ast.Name) and aliased:
            found[target.id] = aliased
    return found
