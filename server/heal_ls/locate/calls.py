"""What a failing test line calls, and which workspace functions those names are.

Used when the exception is raised in the test itself (`assert mean(xs) == 2.5`): the functions
called on that line are the first suspects. Names are resolved against the functions that ran
during the test when the runner recorded them, else through the test module's imports.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from heal_ls.locate.index import FunctionNode, index_file
from heal_ls.pysource.parse import DEF_TYPES, name_of

_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def names_on_line(tree: ast.Module, line: int, local: frozenset[str] = frozenset()) -> list[str]:
    """Names the statement at `line` calls (outermost first), then the other names it reads
    (a property, a function handed to `map`), but not the `local` variables it reads: a bare
    name bound in the test (`version` in `assert version in spec`) runs no function of ours."""
    parts = statement_parts(tree.body, line)
    reads = [
        n
        for p in parts
        for n in ast.walk(p)
        if isinstance(n, ast.Attribute) or (isinstance(n, ast.Name) and n.id not in local)
    ]
    names = call_names(parts) + [name_of(node) for node in sorted(reads, key=_position)]
    return list(dict.fromkeys(n for n in names if n))


def call_names(parts: list[ast.AST]) -> list[str]:
    """The names called in these nodes, in source order (outer calls before their arguments),
    with the dunders that syntax and builtins call (`cache[k]` -> __getitem__, `del c[k]`,
    `k in c`, `len(c)`, `str(v)`)."""
    return calls_among(node for part in parts for node in ast.walk(part))


def calls_among(nodes: Iterable[ast.AST]) -> list[str]:
    """call_names of the nodes of a walk already made (locate/cached.py walks a def's body
    once for its calls and the private state it changes)."""
    found = []
    for node in nodes:
        if isinstance(node, ast.Call):
            found.append((_position(node), name_of(node.func) or _returned_of(node.func)))
        found += [(_position(node), name) for name in _implicit_dunders(node)]
    return [name for _, name in sorted(found, key=lambda f: f[0]) if name]


def property_reads(part: ast.AST) -> list[str]:
    """The attributes read in `part` that are not called (`req.POST`), marked to resolve to
    properties only (`matches`): reading one runs no plain method (`filter(p.match_file, xs)`
    hands the method on)."""
    called = {id(n.func) for n in ast.walk(part) if isinstance(n, ast.Call)}
    return [
        f"{n.attr}{PROPERTY}"
        for n in ast.walk(part)
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and id(n) not in called
    ]


_SUBSCRIPT_DUNDERS = {ast.Load: "__getitem__", ast.Store: "__setitem__", ast.Del: "__delitem__"}
_BUILTIN_DUNDERS = {"len": "__len__", "str": "__str__", "repr": "__repr__"}  # len(c) -> __len__


def _implicit_dunders(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Subscript):
        return [_SUBSCRIPT_DUNDERS.get(type(node.ctx), "__getitem__")]
    if isinstance(node, ast.Compare) and any(isinstance(o, (ast.In, ast.NotIn)) for o in node.ops):
        return ["__contains__"]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return [_BUILTIN_DUNDERS[node.func.id]] if node.func.id in _BUILTIN_DUNDERS else []
    return []


def statement_parts(body: list, line: int) -> list[ast.AST]:
    """The parts of the innermost statement holding `line`: a compound statement's header only
    (its test, iterator...) unless it is a `with` (pytest.raises wraps the call in its body)."""
    for stmt in body:
        if not stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
            continue
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return statement_parts(stmt.body, line)
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            inner = statement_parts(stmt.body, line)
            return inner or [stmt]
        inner = [s for key in _BODIES for s in _flat_body(getattr(stmt, key, None))]
        if not inner:
            return [stmt]
        return statement_parts(inner, line) or _header(stmt)
    return []


def _header(stmt: ast.stmt) -> list[ast.AST]:
    parts: list[ast.AST] = []
    for key, value in ast.iter_fields(stmt):
        if key not in _BODIES:
            values = value if isinstance(value, list) else [value]
            parts.extend(v for v in values if isinstance(v, ast.AST))
    return parts


def _flat_body(value) -> list:
    if not value:
        return []
    if isinstance(value[0], (ast.excepthandler, ast.match_case)):
        return [s for holder in value for s in holder.body]
    return value


def _position(node: Any) -> tuple[int, int]:
    return node.lineno, node.col_offset


def _returned_of(func: ast.AST) -> str | None:
    """`cached(c)(f)` calls what `cached` returns: one of its nested defs, named `cached.<locals>.*`."""
    if isinstance(func, ast.Call):
        inner = name_of(func.func)
        return f"{inner}{RETURNED}" if inner else None
    return None


RETURNED = ".<locals>.*"
NESTED = ".<locals>.**"  # a def nested at any depth in the named function
PROPERTY = ".<property>"  # an attribute read: a property of that name


def wrappers_of(tree: ast.Module, names: list[str]) -> list[str]:
    """Calling a function the test file decorates with workspace code runs the decorator's
    wrapper: `@cachedmethod(key)` on `get` makes `get(...)` run `cachedmethod.<locals>...`."""
    wanted = set(names)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, DEF_TYPES) and node.name in wanted:
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = name_of(target)
                if name:
                    found.append(f"{name}{NESTED}")
    return list(dict.fromkeys(found))


def patched_with(tree: ast.Module, names: list[str]) -> dict[str, str]:
    """The defs a module puts in place of another object's attribute of one of `names`
    (`time.time_ns = fake_time_ns`, a fake's or freezer's patch), by that name: while the patch
    holds, calling `time.time_ns()` runs `fake_time_ns`."""
    wanted = set(names)
    defined = {node.name for node in ast.walk(tree) if isinstance(node, DEF_TYPES)}
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Name):
            continue
        attributes = [t.attr for t in node.targets if isinstance(t, ast.Attribute)]
        for attribute in attributes:
            if attribute in wanted and node.value.id in defined:
                found.setdefault(attribute, node.value.id)
    return found


def matches(name: str, function: FunctionNode) -> bool:
    """Does calling/reading `name` run `function`? (`Inventory(...)` runs `Inventory.__init__`)."""
    if function.name == name:
        return True
    if name.endswith(PROPERTY):
        return function.is_property and function.name == name[: -len(PROPERTY)]
    if name.endswith(NESTED):
        return f".{name[: -len(NESTED)]}.<locals>." in f".{function.qualname}"
    if name.endswith(RETURNED):  # a def nested directly in the named function
        outer, _, inner = function.qualname.rpartition(".<locals>.")
        return bool(inner) and outer.rsplit(".", 1)[-1] == name[: -len(RETURNED)]
    return function.name == "__init__" and function.qualname.split(".")[-2:-1] == [name]


def imported_functions(
    tree: ast.Module, test_path: str, root: str
) -> list[tuple[str, FunctionNode]]:
    """Every function of the workspace modules the test module imports, as (path, node)."""
    found: list[tuple[str, FunctionNode]] = []
    for path in imported_modules(tree, test_path, root):
        index = index_file(path)
        if index is not None:
            found.extend((path, function) for function in index.functions)
    return found


def imported_modules(tree: ast.Module, test_path: str, root: str) -> list[str]:
    """The paths of the workspace modules the test module imports, and those they re-export."""
    return _with_reexports(_imported_files(tree, test_path, root), root)


def _with_reexports(paths, root: str) -> list[str]:
    """`paths` and the modules their packages re-export: `import more_itertools` reaches
    `partial_product` through `from .more import *` in more_itertools/__init__.py."""
    files = list(dict.fromkeys(paths))
    for path in files:  # grows while walked: a re-exported package re-exports in turn
        if os.path.basename(path) != "__init__.py":
            continue
        index = index_file(path)
        if index is not None and index.tree is not None:
            for found in _imported_files(index.tree, path, root):
                if found not in files:
                    files.append(found)
    return files


def _imported_files(tree: ast.Module, test_path: str, root: str):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield from _module_files(alias.name, test_path, root)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute_module(node, test_path, root)
            if base is None:
                continue
            yield from _module_files(base, test_path, root)
            for alias in node.names:  # `from shop import inventory` imports a module
                yield from _module_files(
                    f"{base}.{alias.name}" if base else alias.name, test_path, root
                )


def _absolute_module(node: ast.ImportFrom, test_path: str, root: str) -> str | None:
    if not node.level:
        return node.module
    folder = Path(test_path).parent
    for _ in range(node.level - 1):
        folder = folder.parent
    try:
        package = folder.relative_to(root).parts
    except ValueError:
        return None
    return ".".join([*package, *([node.module] if node.module else [])])


def _module_files(dotted: str, test_path: str, root: str):
    relative = Path(*dotted.split("."))
    for base in (Path(root), Path(root) / "src", Path(test_path).parent):
        for candidate in (base / relative.with_suffix(".py"), base / relative / "__init__.py"):
            if candidate.is_file():
                yield os.path.abspath(candidate)
                return
