"""The classes of ours a failing test may have used, and where in a family of them a member
belongs that the object's class lacks.

A class that lacks a member (`'RSAKey' object has no attribute 'algorithm_name'` read on the
test's line, Python's default repr where the test checks `repr(obj)`) gets it added; but when
the class derives from a base of ours that other classes of ours derive from too, and none of
them (base, class, siblings) defines the member or stores it on `self`, the whole family lacks
it: the fix adds it to the base (`PKey.algorithm_name`, `ImportInfo.__repr__`), where every
sibling gets it. When a sibling has its own, each class keeps its own, and the class is where
it goes.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from heal_ls.locate.calls import imported_modules
from heal_ls.locate.evidence import NamedClass
from heal_ls.locate.index import ClassNode, ModuleIndex
from heal_ls.locate.spectrum import split_key
from heal_ls.locate.state import stored_on_self
from heal_ls.models import Failure
from heal_ls.pysource.parse import name_of
from heal_ls.pysource.paths import TestFiles, is_workspace_file

IndexOf = Callable[[str], ModuleIndex | None]
ClassPlace = tuple[str, ModuleIndex, ClassNode]


class WorkspaceClasses:
    """The classes of ours a failing test may have used: those of the modules it ran or raised
    in and of the modules its test file imports (and their packages re-export)."""

    def __init__(self, failure: Failure, tests: TestFiles, index_of: IndexOf, test_path: str):
        self.index_of, self.tests = index_of, tests
        self.ran = [found for key in failure.covered if (found := split_key(key))]
        paths = [path for path, _ in self.ran]
        paths += [f.path for f in failure.frames]
        index = index_of(test_path)
        if index is not None and index.tree is not None:
            paths += imported_modules(index.tree, test_path, tests.root)
        self.paths = [
            p for p in dict.fromkeys(paths) if p not in tests and is_workspace_file(p, tests.root)
        ]

    def named(self, wanted: NamedClass, near: str | None = None) -> ClassPlace | None:
        """The class of ours `wanted` names: in the module `near` when it has one (a base
        named beside its subclass), else the only one of the modules, narrowed by the module
        the evidence named and then by a def of it that ran."""
        found: list[ClassPlace] = []
        for path in [near] if near else self.paths:
            index = self.index_of(path)
            found += (
                [(path, index, n) for n in index.classes if n.name == wanted.name] if index else []
            )
        if not found and near:
            return self.named(wanted)
        if len(found) > 1:
            found = [c for c in found if wanted.held_in(c[0])] or found
        if len(found) > 1:
            found = [c for c in found if self._ran_in(c)] or found
        return found[0] if len(found) == 1 else None

    def _ran_in(self, place: ClassPlace) -> bool:
        path, _, node = place
        return any(p == path and node.start_line <= line <= node.end_line for p, line in self.ran)

    def bases(self, place: ClassPlace) -> list[ClassPlace]:
        """The class's direct bases that are classes of ours, in the order it names them."""
        body = class_def(place[1], place[2])
        found = (
            [self.named(NamedClass(name), place[0]) for name in base_names(body)] if body else []
        )
        return [base for base in found if base is not None]

    def subclasses(self, base: ClassPlace) -> list[ClassPlace]:
        """The classes of these modules that name `base` among their bases (by name)."""
        found: list[ClassPlace] = []
        for path in self.paths:
            index = self.index_of(path)
            if index is None:
                continue
            for node in index.classes:
                body = class_def(index, node)
                if body is not None and base[2].name in base_names(body):
                    found.append((path, index, node))
        return [c for c in found if (c[0], c[2]) != (base[0], base[2])]

    def lineage_members(self, place: ClassPlace) -> set[str]:
        """The members the class and its bases of ours have of their own."""
        found: set[str] = set()
        todo, seen = [place], []
        while todo:
            current = todo.pop()
            if (current[0], current[2]) not in seen:
                seen.append((current[0], current[2]))
                found |= own_members(current)
                todo += self.bases(current)
        return found

    def lacking_base(self, place: ClassPlace, member: str) -> ClassPlace | None:
        """The base of ours of the class that it and its other subclasses of ours (one at
        least) all lack `member` with: none of them defines it or stores it on `self`."""
        for base in self.bases(place):
            siblings = [c for c in self.subclasses(base) if (c[0], c[2]) != (place[0], place[2])]
            family = [base, place, *siblings]
            if siblings and not any(member in own_members(c) for c in family):
                return base
        return None


def class_def(index: ModuleIndex, node: ClassNode) -> ast.ClassDef | None:
    return next((c for c in index.class_defs if c.lineno == node.def_line), None)


def base_names(body: ast.ClassDef) -> list[str]:
    """The names the class's bases end in (`PKey` of `pkey.PKey`, `Base` of `Base[int]`)."""
    names = [name_of(b.value if isinstance(b, ast.Subscript) else b) for b in body.bases]
    return [name for name in names if name]


def own_members(place: ClassPlace) -> set[str]:
    """The names the class's own body defines or assigns, and those its defs store on
    `self`: the members its objects have of their own."""
    _, index, node = place
    body = class_def(index, node)
    if body is None:
        return set()
    names: set[str] = set()
    for statement in body.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names |= {statement.name, *stored_on_self(statement)}
        elif isinstance(statement, ast.Assign):
            names |= {t.id for t in statement.targets if isinstance(t, ast.Name)}
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            names.add(statement.target.id)
    return names
