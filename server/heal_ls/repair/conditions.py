"""Transformations the real-bug corpus showed fixes need (benchmarks/RESULTS.md, "Local repairer on
real fixes"): a None test that should be a falsy test, a statement that should run only when a
value it uses is truthy, and a string meant as an f-string.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator

from heal_ls.repair.snippet import Edit, Mutation, Snippet
from heal_ls.repair.templates import indent_unit, is_docstring, own_nodes
from heal_ls.repair.values import scope_names

_FIELD = re.compile(r"(?<!\{)\{([A-Za-z_]\w*)[^{}]*\}")  # `{name}`, `{name.attr!r:>3}`


def falsy_tests(snip: Snippet) -> Iterator[Mutation]:
    """`x is None` -> `not x`, `x is not None` -> `x`: an empty string, list or 0 is missing too."""
    for node in snip.nodes():
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
            continue
        right = node.comparators[0]
        if not (isinstance(right, ast.Constant) and right.value is None):
            continue
        value = snip.source_of(node.left)
        if not isinstance(node.left, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
            value = f"({value})"
        new = {ast.Is: f"not {value}", ast.IsNot: value}.get(type(node.ops[0]))
        if new is not None:
            start, end = snip.span(node)
            yield Mutation("falsy-test", (Edit(start, end, new),), snip.user_line(node), 1.8)


def guarded_statements(snip: Snippet) -> Iterator[Mutation]:
    """`out.append(text)` -> `if text:` + the statement indented: a call or yield that should
    happen only when a local value it uses is truthy (the last-used name first)."""
    scope = set(scope_names(snip.func))
    for node in own_nodes(snip.func):
        if not isinstance(node, ast.Expr) or is_docstring(node):
            continue
        start, end = snip.span(node)
        line_start = snip.line_start(node.lineno)
        indent = snip.indent_of(node.lineno)
        rest = snip.text[end:].split("\n", 1)[0].strip()
        if snip.text[line_start:start] != indent or (rest and not rest.startswith("#")):
            continue  # shares its line with other code
        used = [n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in scope]
        used.sort(key=lambda n: (n.lineno, n.col_offset), reverse=True)
        unit, nl = indent_unit(snip, indent), snip.newline
        body = snip.text[line_start:end].replace(nl, nl + unit)
        for rank, name in enumerate(dict.fromkeys(n.id for n in used)):
            text = f"{indent}if {name}:{nl}{unit}{body}"
            edit = Edit(line_start, end, text)
            yield Mutation("guard-statement", (edit,), snip.user_line(node), 3.8 + 0.1 * rank)


def fstrings(snip: Snippet) -> Iterator[Mutation]:
    """`'not {name}'` -> `f'not {name}'` when `{name...}` names a local: a forgotten f prefix
    (each piece of an implicitly concatenated string that holds such a field)."""
    scope = set(scope_names(snip.func))
    formatted = {
        id(n.func.value)
        for n in snip.nodes()
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
    }  # `'{x}'.format(...)`, `'{x}'.format_map(...)`: a template, not a forgotten f
    inside = {id(v) for n in snip.nodes() if isinstance(n, ast.JoinedStr) for v in n.values}
    docs = snip.func.body[0].value if is_docstring(snip.func.body[0]) else None  # type: ignore[attr-defined]
    for node in snip.nodes():
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if id(node) in formatted or id(node) in inside or node is docs:
            continue
        if not any(name in scope for name in _FIELD.findall(node.value)):
            continue
        edits = tuple(_prefixed_pieces(snip, node, scope))
        if edits:
            yield Mutation("f-string", edits, snip.user_line(node), 2.0)


def _prefixed_pieces(snip: Snippet, node: ast.Constant, scope: set[str]) -> Iterator[Edit]:
    start, _ = snip.span(node)
    source = "(" + snip.source_of(node) + ")"  # the pieces may span lines: keep them one expr
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return
    offsets = [-1]  # the added "(" is not in the snippet
    for line in source.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    for token in tokens:
        if token.type != tokenize.STRING:
            continue
        prefix = token.string[: len(token.string) - len(token.string.lstrip("rRbBuUfF"))]
        if set(prefix.lower()) & {"b", "u", "f"}:
            continue
        if any(name in scope for name in _FIELD.findall(token.string)):
            at = start + offsets[token.start[0] - 1] + token.start[1]
            yield Edit(at, at, "f")


GENERATORS = [falsy_tests, fstrings, guarded_statements]
