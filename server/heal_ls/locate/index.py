"""Where every function of a module starts and ends, by position only (stdlib `ast`, cached).

`ast` is fast enough for an editor (a 5,000-line module parses in ~0.2 s) and results are cached
by content hash, so mapping a traceback line to its function is a lookup. libcst is kept off this
path on purpose: its position metadata is ~25x slower.
"""

from __future__ import annotations

import ast
import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from heal_ls.pysource.parse import Def, first_line, name_of, qualified_nodes
from heal_ls.pysource.source import SourceError, byte_col_to_char, read_source, split_lines

_CACHE_SIZE = 256
_cache: OrderedDict[bytes, ModuleIndex | SyntaxError] = OrderedDict()


@dataclass(frozen=True)
class FunctionNode:
    """One def/async def: the whole node, decorators included; lines 1-based, cols code points."""

    qualname: str  # like Python's __qualname__: "Inventory.remove", "outer.<locals>.inner"
    name: str
    start_line: int  # first decorator line (= the code object's co_firstlineno)
    start_col: int
    def_line: int  # the line of the `def` / `async def` keyword
    end_line: int
    end_col: int
    is_async: bool
    is_property: bool = False  # `@property`/`@cached_property`: run by reading the attribute


# A def under one of these decorators runs when its attribute is read (`req.POST`).
PROPERTIES = {"property", "cached_property"}


@dataclass(frozen=True)
class ClassNode:
    qualname: str
    start_line: int  # first decorator line
    def_line: int  # the `class` keyword line
    end_line: int
    start_col: int = 0  # as FunctionNode's: a class can be a suspect too (locate/missing.py)
    end_col: int = 0

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]


@dataclass
class ModuleIndex:
    functions: list[FunctionNode]
    classes: list[ClassNode] = field(default_factory=list)
    tree: ast.Module | None = field(default=None, repr=False, compare=False)
    # The parsed def by its `def` keyword's line: the ranking reads many defs' bodies.
    defs_by_line: dict[int, Def] = field(default_factory=dict, repr=False, compare=False)
    # The parsed classes, outermost first in source order (operators.ClassTable reads their
    # bases and aliases without walking the module again).
    class_defs: list[ast.ClassDef] = field(default_factory=list, repr=False, compare=False)
    # The names each def's body calls, by its `def` line (locate/cached.called_in), read once;
    # for the functions a failing test ran, while the tests still run (locate/prefetch.py).
    calls: dict[int, list[str]] = field(default_factory=dict, repr=False, compare=False)
    # The private attributes each def stores on another object, read with its calls
    # (locate/cached.private_writes: one walk of the def for both).
    private_writes: dict[int, set[str]] = field(default_factory=dict, repr=False, compare=False)

    def def_node(self, def_line: int) -> Def | None:
        return self.defs_by_line.get(def_line)

    def function_at(self, line: int) -> FunctionNode | None:
        """The innermost def whose range (decorators included) contains `line`."""
        inside = [f for f in self.functions if f.start_line <= line <= f.end_line]
        return max(inside, key=lambda f: f.start_line, default=None)

    def function_for_frame(self, line: int, code_name: str) -> FunctionNode | None:
        """The function whose code runs `line` in a frame named `code_name`: like `function_at`,
        but a def or decorator line belongs to the scope around the def (it binds it), and class
        or module code to no function."""
        spans: list[FunctionNode | ClassNode] = [*self.functions, *self.classes]
        scopes = sorted(
            (s for s in spans if s.start_line <= line <= s.end_line),
            key=lambda s: -s.start_line,
        )
        while scopes and line <= scopes[0].def_line and scopes[0].name != code_name:
            scopes.pop(0)
        if code_name == "<module>" or not scopes or isinstance(scopes[0], ClassNode):
            return None
        if code_name.startswith("<") or scopes[0].name == code_name:  # <lambda>, <listcomp>...
            return scopes[0]
        named = [s for s in scopes if s.name == code_name and isinstance(s, FunctionNode)]
        return named[0] if named else scopes[0]  # the text changed since the run

    def class_at(self, line: int) -> ClassNode | None:
        inside = [c for c in self.classes if c.start_line <= line <= c.end_line]
        return max(inside, key=lambda c: c.start_line, default=None)

    def find(self, qualname: str, near_line: int | None = None) -> FunctionNode | None:
        """The def with this qualname; with several (if/else, @overload), the one nearest
        `near_line`, else the last one (the definition that wins at run time)."""
        same = [f for f in self.functions if f.qualname == qualname]
        if not same:
            return None
        if near_line is None:
            return same[-1]
        containing = [f for f in same if f.start_line <= near_line <= f.end_line]
        if containing:
            return containing[0]
        return min(same, key=lambda f: abs(f.start_line - near_line))

    def at_start_line(self, start_line: int) -> FunctionNode | None:
        """The def whose first line (co_firstlineno) is `start_line`, as coverage keys record."""
        for function in self.functions:
            if function.start_line == start_line:
                return function
        return None


def index_source(text: str) -> ModuleIndex:
    """Index every def in `text`; raises SyntaxError (also for NUL bytes or absurd nesting)."""
    key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    cached = _cache.get(key)
    if cached is None:
        cached = _build(text)
        _cache[key] = cached
        if len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    else:
        _cache.move_to_end(key)
    if isinstance(cached, SyntaxError):
        raise cached
    return cached


def index_file(path: str | Path) -> ModuleIndex | None:
    """Index a file on disk; None when it cannot be read, decoded or parsed."""
    try:
        return index_source(read_source(path))
    except (OSError, SourceError, SyntaxError):
        return None


def _build(text: str) -> ModuleIndex | SyntaxError:
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        return exc
    except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes, too deeply nested
        return SyntaxError(f"cannot parse: {exc}")
    lines = split_lines(text)
    index = ModuleIndex(functions=[], classes=[], tree=tree)
    for qualname, node in qualified_nodes(tree):
        if isinstance(node, ast.ClassDef):
            end = node.end_lineno or node.lineno
            start_col = byte_col_to_char(lines[node.lineno - 1], node.col_offset)
            end_col = byte_col_to_char(lines[end - 1], node.end_col_offset or 0)
            index.classes.append(
                ClassNode(qualname, first_line(node), node.lineno, end, start_col, end_col)
            )
            index.class_defs.append(node)
        else:
            index.functions.append(_function_node(node, qualname, first_line(node), lines))
            index.defs_by_line.setdefault(node.lineno, node)
    index.functions.sort(key=lambda f: (f.start_line, f.def_line))
    return index


def _function_node(node, qualname: str, start: int, lines: list[str]) -> FunctionNode:
    end_line = node.end_lineno or node.lineno
    return FunctionNode(
        qualname=qualname,
        name=node.name,
        start_line=start,
        # Decorators sit at the def's indentation, so the def's column is the node's column.
        start_col=byte_col_to_char(lines[node.lineno - 1], node.col_offset),
        def_line=node.lineno,
        end_line=end_line,
        end_col=byte_col_to_char(lines[end_line - 1], node.end_col_offset or 0),
        is_async=isinstance(node, ast.AsyncFunctionDef),
        is_property=any(name_of(d) in PROPERTIES for d in node.decorator_list),
    )
