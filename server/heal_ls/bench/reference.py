"""Comparing a healed function with the reference fix, and putting the reference into a module.

Kept separate from heal_ls.pysource.splice on purpose: the bench judges the heal engine, so it uses its
own small, plain line-based splice to build the reference module.
"""

from __future__ import annotations

import ast
import textwrap

from heal_ls.pysource.parse import DEF_TYPES, Def, first_line, qualified_defs


def find_function(tree: ast.Module, qualname: str) -> Def | None:
    """The def node for "f", "Class.method" or "outer.<locals>.inner" (the first, if redefined)."""
    return next((node for name, node in qualified_defs(tree) if name == qualname), None)


def _line_range(node: Def) -> tuple[int, int]:
    return first_line(node), node.end_lineno or node.lineno


def function_text(module_text: str, qualname: str) -> str | None:
    """The function's source dedented to column 0, or None when it is not in the module."""
    node = find_function(ast.parse(module_text), qualname)
    if node is None:
        return None
    first, last = _line_range(node)
    lines = module_text.splitlines(keepends=True)[first - 1 : last]
    return textwrap.dedent("".join(lines))


def with_function(module_text: str, qualname: str, new_def: str) -> str:
    """The module with the function replaced by new_def, indented to the old def's column."""
    node = find_function(ast.parse(module_text), qualname)
    if node is None:
        raise ValueError(f"{qualname} not found")
    first, last = _line_range(node)
    lines = module_text.splitlines(keepends=True)
    newline = "\r\n" if lines[first - 1].endswith("\r\n") else "\n"
    indent = lines[first - 1][: len(lines[first - 1]) - len(lines[first - 1].lstrip())]
    body = textwrap.dedent(new_def).splitlines()
    new_lines = [(indent + line if line.strip() else "") + newline for line in body]
    return "".join(lines[: first - 1] + new_lines + lines[last:])


def reference_module(module_text: str, case) -> str:
    """The module as the reference fix leaves it: the target replaced; for a multi-node fix also
    every other reference def (replaced by name, or appended) and its imports (after the
    module's docstring)."""
    if not case.reference_module_code:
        return with_function(module_text, case.qualname, case.reference_source)
    tree = ast.parse(case.reference_module_code)
    lines = case.reference_module_code.splitlines(keepends=True)
    for node in tree.body:
        if not isinstance(node, DEF_TYPES):
            continue
        first, last = _line_range(node)
        source = "".join(lines[first - 1 : last])
        qualname = case.qualname if node.name == case.qualname.rsplit(".", 1)[-1] else node.name
        if find_function(ast.parse(module_text), qualname) is not None:
            module_text = with_function(module_text, qualname, source)
        else:
            module_text = module_text.rstrip("\n") + "\n\n\n" + textwrap.dedent(source)
    imports = "".join(
        "".join(lines[n.lineno - 1 : n.end_lineno])
        for n in tree.body
        if isinstance(n, (ast.Import, ast.ImportFrom))
    )
    body = ast.parse(module_text).body
    has_doc = body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
    at = body[0].end_lineno if has_doc else 0
    text_lines = module_text.splitlines(keepends=True)
    return "".join(text_lines[:at]) + imports + "".join(text_lines[at:])


def same_functions(module_text: str, case) -> bool:
    """Every def of the reference has the same normalised AST in the module."""
    code = textwrap.dedent(case.reference_module_code or case.reference_source)
    lines = code.splitlines(keepends=True)
    for node in ast.parse(code).body:
        if isinstance(node, DEF_TYPES):
            qualname = case.qualname if node.name == case.qualname.rsplit(".", 1)[-1] else node.name
            healed = function_text(module_text, qualname)
            first, last = _line_range(node)  # decorators included
            if healed is None or not same_function(healed, "".join(lines[first - 1 : last])):
                return False
    return True


def normalised(function_source: str) -> str | None:
    try:
        return ast.dump(ast.parse(textwrap.dedent(function_source)))
    except SyntaxError:
        return None


def same_function(a: str, b: str) -> bool:
    """True when the two defs have the same normalised AST (formatting and comments ignored)."""
    key = normalised(a)
    return key is not None and key == normalised(b)
