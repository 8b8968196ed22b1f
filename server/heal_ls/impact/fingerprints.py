"""Each function of a file with a fingerprint of its source, read once per (mtime_ns, size).

The file is compiled once (C speed: dumping every def's syntax tree instead cost ~3x as much as
parsing it) and its code objects are hashed without their line numbers. A function's fingerprint
hashes its code (bytecode, constants, names, docstring, nested functions), so moving a function
or editing a comment changes nothing. `outer` hashes everything of the module outside its
functions' code (imports, constants, class headers, and the decorators and defaults of its defs,
which run there): when it changes, every function of the file may behave differently. `whole`
hashes the whole module's code: a test file's tests are as fresh as the file. A file that does
not compile is no file (it cannot be imported either).

A function's `layout` hashes where its code sits relative to its first line (its line table and
its nested code's): a comment added inside it moves its blocks without changing its code, so the
blocks a test ran there, kept relative to the function's first line, no longer fit (record.py).

    prints = file_functions("/abs/pkg/mod.py")
    prints.functions["Cls.method"].fingerprint
    prints.at_line(12)   # "Cls.method": the function whose first line (decorators too) is 12
"""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import os
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import CodeType

OPTIMIZED = 0x1  # CO_OPTIMIZED: a function's code has it, a class body's or a module's not


@dataclass(frozen=True)
class FunctionPrint:
    qualname: str
    line: int  # first line, decorators included: the line coverage keys carry
    fingerprint: str
    layout: str = ""  # where its code sits relative to `line` (its blocks' offsets hold)
    last: int = 0  # the last line holding its code (nested code too): its blocks are up to it
    # the first lines of its other defs after `line` (a property's setter, the implementation
    # after @overload stubs), as offsets from `line`: a run's coverage key names the def that ran
    also: tuple[int, ...] = ()

    def starts(self) -> tuple[int, ...]:
        """The first line of each of its defs: the lines a run's coverage keys name it by."""
        return (self.line, *(self.line + offset for offset in self.also))

    def also_text(self) -> str:
        """`also` as the map keeps it ("19,25"; "" for one def)."""
        return ",".join(map(str, self.also))


def also_of(text: str) -> tuple[int, ...]:
    """`FunctionPrint.also` from the map's text of it."""
    return tuple(int(offset) for offset in text.split(",") if offset)


@dataclass
class FileFunctions:
    """The functions of one file as it was when `signature` was read."""

    signature: tuple[int, int]  # (mtime_ns, size)
    outer: str
    whole: str
    functions: dict[str, FunctionPrint] = field(default_factory=dict)
    lines: dict[int, str] = field(default_factory=dict)  # first line -> qualname
    partial: bool = False  # only the functions the map holds (a line not among them: read it)

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
    """The file's functions and fingerprints (None: missing or not Python that compiles)."""
    path = os.path.abspath(path)
    seen = signature(path)
    if seen is None:
        return None
    cached = _read.get(path)
    if cached is not None and cached.signature == seen:
        return cached
    try:
        with open(path, "rb") as handle:
            source = handle.read()
    except OSError:
        return None
    found = read_tree(source, seen, path)
    if found is not None:
        _read[path] = found
    return found


def read_tree(source: bytes, seen: tuple[int, int], path: str) -> FileFunctions | None:
    """The file's functions from its source (None: not Python that compiles)."""
    module = imported_code(path, seen)
    if module is None:
        with warnings.catch_warnings():  # the test run shows the module's own warnings, not us
            warnings.simplefilter("ignore")
            try:
                module = compile(source, path, "exec", dont_inherit=True)
            except (SyntaxError, ValueError):
                return None
    digests = Digests()
    found = FileFunctions(seen, digests.outer(module), digests.of(module))
    for qualname, code in _functions(module, ""):
        mine, first = digests.of(code), code.co_firstlineno
        earlier = found.functions.get(qualname)
        if earlier is not None:  # two defs of one name (a property's setter...)
            mine = hash_parts([earlier.fingerprint, mine])
            first = earlier.line
        lines = sorted(set(_code_lines(code)))
        layout = hash_parts([earlier.layout if earlier else "", repr([n - first for n in lines])])
        last = max([first, *lines, earlier.last if earlier else 0])
        also = (*earlier.also, code.co_firstlineno - first) if earlier else ()
        found.functions[qualname] = FunctionPrint(qualname, first, mine, layout, last, also)
        found.lines.setdefault(code.co_firstlineno, qualname)
    return found


def imported_code(path: str, seen: tuple[int, int]) -> CodeType | None:
    """The module's code from the bytecode an import of it left in __pycache__, when Python's
    own import would take it for the source at `seen` (mtime_ns, size): this interpreter's magic
    number, a timestamp pyc recording the source's mtime (in seconds) and size. Reading it costs
    a seventh of compiling the source (networkx, 60 files: 11 vs 78 ms of CPU); None: compile."""
    try:
        with open(importlib.util.cache_from_source(path), "rb") as handle:
            data = handle.read()
    except (OSError, ValueError, NotImplementedError):  # none, or no cache tag
        return None
    header = (
        importlib.util.MAGIC_NUMBER
        + (0).to_bytes(4, "little")  # flags: a timestamp pyc (a hash-based one is compiled)
        + ((seen[0] // 1_000_000_000) & 0xFFFFFFFF).to_bytes(4, "little")
        + (seen[1] & 0xFFFFFFFF).to_bytes(4, "little")
    )
    if not data.startswith(header):
        return None
    try:
        code = marshal.loads(data[len(header) :])
    except (EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, CodeType) else None


def _code_lines(code: CodeType) -> Iterator[int]:
    """Every line holding code of `code` and of the code nested in it."""
    yield code.co_firstlineno
    yield from (line for _, _, line in code.co_lines() if line is not None)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _code_lines(const)


def _functions(code: CodeType, prefix: str) -> Iterator[tuple[str, CodeType]]:
    """(qualname, code) of every def inside `code`, nested ones too, in source order, spelled
    as Python's __qualname__ (a lambda's or comprehension's code holds no def)."""
    for const in code.co_consts:
        if not isinstance(const, CodeType) or const.co_name.startswith("<"):
            continue
        if const.co_flags & OPTIMIZED:  # a function
            qualname = prefix + const.co_name
            yield qualname, const
            yield from _functions(const, qualname + ".<locals>.")
        else:  # a class body
            yield from _functions(const, prefix + const.co_name + ".")


class Digests:
    """Code digests, each code object hashed once (a function's digest holds its nested ones')."""

    def __init__(self) -> None:
        self._done: dict[int, str] = {}

    def of(self, code: CodeType) -> str:
        """Everything the code does, without where it is (no line table, no file name)."""
        known = self._done.get(id(code))
        if known is None:
            known = self._done[id(code)] = self._digest(code, skip_functions=False)
        return known

    def outer(self, code: CodeType) -> str:
        """The module's code with every function's code left out (class bodies kept)."""
        return self._digest(code, skip_functions=True)

    def _digest(self, code: CodeType, skip_functions: bool) -> str:
        shape = (
            code.co_name, code.co_flags, code.co_argcount, code.co_posonlyargcount,
            code.co_kwonlyargcount, code.co_names, code.co_varnames, code.co_freevars,
            code.co_cellvars, _const_text(code.co_consts, self, skip_functions),
        )  # fmt: skip
        table = getattr(code, "co_exceptiontable", b"")  # 3.11+: which code a try covers
        return hash_parts([code.co_code.hex(), table.hex(), repr(shape)])


def _const_text(const: object, digests: Digests, skip_functions: bool) -> str:
    if isinstance(const, CodeType):
        if const.co_flags & OPTIMIZED:
            return "<function>" if skip_functions else digests.of(const)
        return digests.outer(const) if skip_functions else digests.of(const)
    if isinstance(const, tuple):
        return "(" + ",".join(_const_text(c, digests, skip_functions) for c in const) + ")"
    if isinstance(const, frozenset):  # its order follows the process's string hashes
        return "frozenset" + repr(sorted(map(repr, const)))
    return repr(const)


def hash_parts(parts: list[str]) -> str:
    digest = hashlib.blake2b(digest_size=12)
    for part in parts:
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()
