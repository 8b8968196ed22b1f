"""Each function of a file with a fingerprint of its source, read once per (mtime_ns, size).

A function's fingerprint hashes its syntax tree (decorators and docstring included; comments,
blank lines and its position in the file not), so moving a function or editing a comment above it
changes nothing. `outer` hashes everything of the module outside its functions (imports,
constants, class headers): when it changes, every function of the file may behave differently.
`whole` hashes the whole tree: a test file's tests are as fresh as the file.

    prints = file_functions("/abs/pkg/mod.py")
    prints.functions["Cls.method"].fingerprint
    prints.at_line(12)   # "Cls.method": the function whose first line (decorators too) is 12
"""

from __future__ import annotations

import ast
import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class FunctionPrint:
    qualname: str
    line: int  # first line, decorators included: the line coverage keys carry
    fingerprint: str


@dataclass
class FileFunctions:
    """The functions of one file as it was when `signature` was read."""

    signature: tuple[int, int]  # (mtime_ns, size)
    outer: str
    whole: str
    functions: dict[str, FunctionPrint] = field(default_factory=dict)
    lines: dict[int, str] = field(default_factory=dict)  # first line -> qualname

    def at_line(self, line: int) -> str | None:
        return self.lines.get(line)


_read: dict[str, FileFunctions] = {}  # abs path -> last read


def signature(path: str) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size)


def file_functions(path: str) -> FileFunctions | None:
    """The file's functions and fingerprints (None: missing or not Python that parses)."""
    path = os.path.abspath(path)
    seen = signature(path)
    if seen is None:
        return None
    cached = _read.get(path)
    if cached is not None and cached.signature == seen:
        return cached
    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read(), path)
    except (OSError, SyntaxError, ValueError):
        return None
    found = read_tree(tree, seen)
    _read[path] = found
    return found


def read_tree(tree: ast.Module, seen: tuple[int, int]) -> FileFunctions:
    found = FileFunctions(seen, _hash(_outer(tree.body)), _hash([ast.dump(tree)]))
    for qualname, node in _defs(tree.body, ""):
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        mine = _hash([ast.dump(node)])
        if qualname in found.functions:  # two defs of one name (a property's setter...)
            mine = _hash([found.functions[qualname].fingerprint, mine])
            first = found.functions[qualname].line
        found.functions[qualname] = FunctionPrint(qualname, first, mine)
        found.lines.setdefault(first, qualname)
    return found


def _defs(
    body: list[ast.stmt], prefix: str
) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(qualname, node) of every def, nested ones too, spelled as Python's __qualname__."""
    for node in body:
        for child in _statements(node):
            if isinstance(child, DEFS):
                qualname = prefix + child.name
                yield qualname, child
                yield from _defs(child.body, qualname + ".<locals>.")
            elif isinstance(child, ast.ClassDef):
                yield from _defs(child.body, prefix + child.name + ".")


def _statements(node: ast.stmt) -> Iterator[ast.stmt]:
    """The node, or for `if`/`try`/`with` blocks the statements they hold (defs under
    `if TYPE_CHECKING:` or `try: ... except ImportError:` keep their plain qualname)."""
    if isinstance(node, (*DEFS, ast.ClassDef)) or not hasattr(node, "body"):
        yield node
        return
    for name in ("body", "orelse", "finalbody"):
        for child in getattr(node, name, None) or ():
            yield from _statements(child)
    for handler in getattr(node, "handlers", None) or ():
        for child in handler.body:
            yield from _statements(child)


def _outer(body: list[ast.stmt]) -> list[str]:
    """Dumps of the module's statements with every def left out (a class keeps its header)."""
    parts = []
    for node in body:
        if isinstance(node, DEFS):
            continue
        if isinstance(node, ast.ClassDef):
            header = [node.name, *map(ast.dump, [*node.bases, *node.keywords])]
            parts.append("class " + " ".join(header + list(map(ast.dump, node.decorator_list))))
            parts += _outer(node.body)
        else:
            parts.append(ast.dump(node))
    return parts


def _hash(parts: list[str]) -> str:
    digest = hashlib.blake2b(digest_size=12)
    for part in parts:
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()
