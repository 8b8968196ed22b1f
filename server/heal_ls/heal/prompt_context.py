"""Source context for the heal prompt, found with the stdlib ast: the failing test function,
the same-module functions the target calls, and the module-level names it reads."""

from __future__ import annotations

import ast
import os

from heal_ls.locate import index_source
from heal_ls.models import Failure
from heal_ls.pysource.parse import Def, qualified_defs
from heal_ls.pysource.source import LINE_BREAK, read_source

MAX_TEST_LINES, MAX_CONTEXT_LINE = 120, 120


def dedent(lines: list[str]) -> str:
    indent = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return "\n".join(x[indent:] for x in lines)


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 15] + " ...[truncated]"


def failing_test_source(failure: Failure, root: str) -> tuple[str, str, str] | None:
    """(path, qualname, dedented source) of the failing test function, found by the nodeid's
    name (nearest the failing line) or else by the failing line; None when it cannot be read."""
    path = failure.test_path or _path_from_nodeid(failure.test, root)
    if not path:
        return None
    try:
        text = read_source(path)
        index = index_source(text)
    except (OSError, ValueError, SyntaxError):
        return None
    qualname = _qualname_from_nodeid(failure.test or failure.id)
    node = index.find(qualname, failure.test_line) if qualname else None
    if node is None and failure.test_line:
        node = index.function_at(failure.test_line)
    if node is None:
        return None
    lines = LINE_BREAK.split(text)[node.start_line - 1 : node.end_line]
    if len(lines) > MAX_TEST_LINES:
        lines = lines[:MAX_TEST_LINES] + [f"    # ... {len(lines) - MAX_TEST_LINES} more lines"]
    return path, node.qualname, dedent(lines)


def _path_from_nodeid(nodeid: str | None, root: str) -> str | None:
    if not nodeid or "::" not in nodeid:
        return None
    return os.path.join(root, nodeid.split("::", 1)[0])


def _qualname_from_nodeid(nodeid: str) -> str | None:
    """ "tests/t.py::TestK::test_x[1-2]" -> "TestK.test_x"."""
    if "::" not in nodeid:
        return None
    return ".".join(nodeid.split("::")[1:]).split("[", 1)[0] or None


def related_lines(module_text: str, qualname: str) -> tuple[list[str], list[str]]:
    """(callee signatures, module-level assignments) the target function uses, one line each."""
    try:
        tree = ast.parse(module_text)
    except (SyntaxError, ValueError, RecursionError):
        return [], []
    defs = _defs_by_qualname(tree)
    target = defs.get(qualname)
    if target is None:
        return [], []
    owner = qualname.rsplit(".", 1)[0] if "." in qualname else ""
    callees = [
        signature(name, defs[name])
        for name in _called_names(target, owner)
        if name in defs and name != qualname
    ]
    return callees, _globals_read(tree, target, module_text)


def _defs_by_qualname(tree: ast.Module) -> dict[str, Def]:
    """Every def by qualname; of two defs with one name (if/else branches) the last one wins."""
    return dict(qualified_defs(tree))


def _called_names(target: ast.AST, owner: str) -> list[str]:
    """`f(...)` -> "f"; `self.m(...)` / `cls.m(...)` -> "Owner.m"; in order of first call."""
    names: list[str] = []
    for node in ast.walk(target):
        if not isinstance(node, ast.Call):
            continue
        func, name = node.func, ""
        if isinstance(func, ast.Name):
            name = func.id
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and owner:
            name = f"{owner}.{func.attr}" if func.value.id in ("self", "cls") else ""
        if name and name not in names:
            names.append(name)
    return names


def signature(qualname: str, node: Def) -> str:
    prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    line = f"{prefix} {qualname}({ast.unparse(node.args)}){returns}"
    doc = (ast.get_docstring(node) or "").strip().splitlines()
    return f"{line}  # {clip(doc[0], MAX_CONTEXT_LINE)}" if doc else line


def _globals_read(tree: ast.Module, target: Def, module_text: str) -> list[str]:
    """Module-level `NAME = value` lines for the names the target reads (constants, tables)."""
    read = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    lines = LINE_BREAK.split(module_text)
    found = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        names = {t.id for t in targets if isinstance(t, ast.Name)}
        if isinstance(node, ast.Assign | ast.AnnAssign) and names & read:
            text = " ".join(x.strip() for x in lines[node.lineno - 1 : node.end_lineno])
            found.append(clip(text, MAX_CONTEXT_LINE))
    return found
