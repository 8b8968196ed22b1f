"""Parse helpers shared by every part that walks a module: ONE qualname walker, a def's first line.

Qualnames follow Python's own `__qualname__` rules (`Class.method`, `outer.<locals>.inner`), and
defs are found wherever a statement may hold them: under `if`, `try`/`except`/`else`/`finally`,
`with`, loops and `match` cases, not only directly in a module or class body.
"""

from __future__ import annotations

import ast
import textwrap
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

Def = ast.FunctionDef | ast.AsyncFunctionDef
DEF_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef)


def qualified_defs(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, Def]]:
    """Yield (qualname, def node) for every def, outermost first, in source order."""
    for qualname, node in qualified_nodes(tree, prefix):
        if isinstance(node, DEF_TYPES):
            yield qualname, node


def qualified_nodes(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, Def | ast.ClassDef]]:
    """Yield (qualname, node) for every def and class, outermost first, in source order: the one
    walker, so every part names a def the same way (`C.m`, `f.<locals>.g`, under if/try/with).

    Only statement blocks are walked: defs cannot hide inside expressions, and skipping them
    makes this ten times cheaper than ast.walk on big modules.
    """
    for stmt in statements(tree):
        if isinstance(stmt, DEF_TYPES):
            yield prefix + stmt.name, stmt
            yield from qualified_nodes(stmt, prefix + stmt.name + ".<locals>.")
        elif isinstance(stmt, ast.ClassDef):
            yield prefix + stmt.name, stmt
            yield from qualified_nodes(stmt, prefix + stmt.name + ".")
        else:
            yield from qualified_nodes(stmt, prefix)


def statements(node: ast.AST) -> Iterator[ast.stmt]:
    """The statements directly inside a node's blocks, in source order (body, except handlers
    or match cases, else, finally)."""
    yield from getattr(node, "body", None) or ()
    for inner in getattr(node, "handlers", ()) or getattr(node, "cases", ()):
        yield from inner.body
    for field in ("orelse", "finalbody"):
        yield from getattr(node, field, None) or ()


def statements_holding(node: ast.AST, line: int) -> Iterator[ast.stmt]:
    """Every statement in a node's blocks, however deep, whose lines hold `line`, outermost
    first: the only ones that can be a block around that line (a `with`, a class), found
    without walking the rest of a big module or any expression."""
    for stmt in statements(node):
        if stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
            yield stmt
            yield from statements_holding(stmt, line)


def name_of(node: ast.AST) -> str | None:
    """The name a reference ends in: `f` of `f`, `attr` of `obj.attr`; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def imported_names(nodes: Iterable[ast.AST]) -> Iterator[str]:
    """The absolute modules the import statements among `nodes` name: `import a.b` -> a.b;
    `from a import b` -> a, a.b (b may be a module or a name in a). Relative imports are left
    out. `ast.walk(tree)` for every import, `ast.iter_child_nodes(tree)` for the top level's."""
    for node in nodes:
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def sole_return(found: Def) -> ast.Return | None:
    """The `return` statement that is the def's whole body, its docstring aside; else None."""
    body = found.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    return body[0] if len(body) == 1 and isinstance(body[0], ast.Return) else None


def first_line(node: ast.AST) -> int:
    """The line a def (or class) starts on: its first decorator's, else the `def` line."""
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno] + [d.lineno for d in decorators])  # type: ignore[attr-defined]


def parse_block(block: str) -> tuple[str, ast.Module]:
    """Parse a code block that may be indented as a whole; returns (code parsed, tree)."""
    code = textwrap.dedent(block)
    try:
        return code, parse_python(code)
    except IndentationError:
        # Dedent fails when a string inside starts at column 0: wrap in a block instead.
        wrapped = "if True:\n" + block
        try:
            inner = parse_python(wrapped).body[0].body  # type: ignore[attr-defined]
        except SyntaxError:
            pass
        else:  # the statements inside the wrapper, as if they were the module
            return wrapped, ast.Module(body=inner, type_ignores=[])
        raise


def parse_python(code: str) -> ast.Module:
    """ast.parse, with every way bad input can fail turned into a SyntaxError."""
    if "\x00" in code:  # Python 3.10 raises ValueError, later versions SyntaxError
        raise SyntaxError("source code cannot contain null bytes")
    try:
        with warnings.catch_warnings():  # "invalid escape sequence" in model code is not our news
            warnings.simplefilter("ignore")
            return ast.parse(code)
    except (RecursionError, MemoryError) as err:  # absurdly deep nesting
        raise SyntaxError("the code is nested too deeply to parse") from err


def node_source(code: str, node: Any) -> str:
    """The lines of a def node (decorators included), dedented by the def's own indentation."""
    lines = code.split("\n")
    first = first_line(node)
    chunk = lines[first - 1 : node.end_lineno]
    indent = chunk[0][: len(chunk[0]) - len(chunk[0].lstrip())]
    out = [line[len(indent) :] if line.startswith(indent) else line for line in chunk]
    return "\n".join(out).rstrip() + "\n"


def describe_syntax_error(err: SyntaxError) -> str:
    """'line 3: invalid syntax in `x = `', short enough to go back to the model."""
    where = f"line {err.lineno}: " if err.lineno else ""
    line = (err.text or "").strip()
    text = f" in `{line[:60]}{'...' if len(line) > 60 else ''}`" if line else ""
    return f"{where}{err.msg}{text}"


def normalised(function_source: str) -> str:
    """A formatting-independent form, so equal candidates compare equal."""
    try:
        return ast.dump(ast.parse(textwrap.dedent(function_source)))
    except SyntaxError:
        return function_source.strip()


def compiles(text: str, path: str) -> bool:
    try:
        compile_module(parse_module(text), path)
    except SyntaxError:
        return False
    return True


def parse_module(text: str) -> ast.Module:
    return parse_python(_strip_bom(text))


def compile_module(tree_or_text: ast.Module | str, path: str) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(tree_or_text, path or "<heal>", "exec", dont_inherit=True)
    except (RecursionError, MemoryError) as err:  # absurdly deep nesting
        raise SyntaxError("the code is nested too deeply to compile") from err


def _strip_bom(text: str) -> str:
    # ast refuses a BOM inside a str; dropping it shifts only line 1, where no def can be indented.
    return text[1:] if text.startswith("\ufeff") else text
