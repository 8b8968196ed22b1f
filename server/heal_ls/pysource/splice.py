"""Splice a proposed function into the exact def node a Suspect names, and prove nothing else moved.

The node is found by position with stdlib `ast` (never "the first def with that name"). The new
def is re-indented to the node's column in the function's own indent style (tabs or N spaces), its
line endings are the module's, and the original decorators are kept when the answer dropped them.
Then the result is checked, not assumed: it compiles, the def at that place has the same name (and
async-ness), and every character before and after the node is identical to the original.
"""

from __future__ import annotations

import ast
import functools
import re
import tokenize
from dataclasses import dataclass

from heal_ls.models import Suspect
from heal_ls.pysource.indent import leading_space, reindent
from heal_ls.pysource.parse import (
    DEF_TYPES,
    Def,
    compile_module,
    compiles,
    describe_syntax_error,
    first_line,
    node_source,
    parse_block,
    parse_module,
    qualified_defs,
)
from heal_ls.pysource.source import LINE_BREAK, byte_col_to_char, line_at, line_starts

_ROLE = re.compile(r"^(property|\w+\.(setter|getter|deleter)|(typing\.)?overload)$")


class SpliceError(Exception):
    """The edit cannot be made or proven; str(err) says why, in words fit for the model."""


@dataclass
class _Region:
    """Where a def node sits in a module: character offsets of [start, end) and its indentation."""

    node: Def
    start: int  # offset of the first decorator (or `def`), BOM included
    end: int  # offset just after the last character of the body
    def_start: int  # offset of the `def` / `async` keyword
    base: str  # the whitespace before the node on its first line
    unit: str  # the function's own indent step
    newline: str


def function_source(module_text: str, suspect: Suspect) -> str:
    """The def as it stands in the module: whole lines, indentation and decorators included."""
    region = _find(module_text, suspect)
    return module_text[region.start - len(region.base) : region.end]


def splice(module_text: str, suspect: Suspect, new_function: str) -> str:
    """Return module_text with the suspect's def node replaced by new_function, proven local."""
    region = _find(module_text, suspect)
    new_node = _new_node_text(module_text, region, _candidate_def(new_function, region.node))
    result = module_text[: region.start] + new_node + module_text[region.end :]
    _prove(module_text, result, region, len(new_node), suspect.path)
    return result


def replacement(module_text: str, suspect: Suspect, new_function: str) -> tuple[int, int, str]:
    """(start, end, text): what replaces module_text[start:end] to put new_function in the
    suspect's node, re-indented, decorators kept; the same checks as `splice`, unproven."""
    region = _find(module_text, suspect)
    new_node = _new_node_text(module_text, region, _candidate_def(new_function, region.node))
    return region.start, region.end, new_node


def after_node(module_text: str, suspect: Suspect, new_function: str) -> tuple[int, str]:
    """(offset, text) inserting new_function as a new def right after the suspect's node, at its
    indentation, one blank line apart (two at module level)."""
    region = _find(module_text, suspect)
    code = new_function.replace("\r\n", "\n").replace("\r", "\n")
    try:
        lines = reindent(code.rstrip("\n") + "\n", region.base.replace("\f", ""), region.unit)
    except (tokenize.TokenError, SyntaxError) as err:
        raise SpliceError(f"the helper cannot be tokenized: {err}") from err
    nl = region.newline
    blank = nl * (2 if region.base else 3)
    ending = LINE_BREAK.search(module_text, region.end)
    if ending is None:  # the target ends the file without a line break
        return len(module_text), blank + nl.join(lines).rstrip(" \t")
    while lines and not lines[-1].strip():
        lines.pop()
    return ending.end(), blank[len(nl) :] + nl.join(lines) + nl


def _find(text: str, suspect: Suspect) -> _Region:
    """The def node the suspect names, checked to start there and to carry the suspect's name."""
    name = suspect.qualname.rsplit(".", 1)[-1]
    try:
        tree = _parse_cached(text)
    except SyntaxError as err:
        raise SpliceError(f"the module does not parse: {describe_syntax_error(err)}") from err
    node = _defs_by_line(tree).get(suspect.start_line)
    if node is None:
        raise SpliceError(f"no function starts at line {suspect.start_line} any more")
    if node.name != name:
        raise SpliceError(f"line {suspect.start_line} holds `{node.name}`, not `{name}`")
    if suspect.end_line and node.end_lineno != suspect.end_line:
        raise SpliceError(f"`{name}` no longer ends at line {suspect.end_line}")
    region = _region(text, node)
    if suspect.start_col != len(region.base.replace("\ufeff", "")):
        raise SpliceError(f"no function starts at line {suspect.start_line}:{suspect.start_col}")
    return region


def _region(text: str, node) -> _Region:
    starts = line_starts(text)
    first = first_line(node)
    line = line_at(text, starts, first)
    base = leading_space(line)
    end_line = line_at(text, starts, node.end_lineno)
    end = starts[node.end_lineno - 1] + byte_col_to_char(end_line, node.end_col_offset)
    def_line = line_at(text, starts, node.lineno)
    def_start = starts[node.lineno - 1] + byte_col_to_char(def_line, node.col_offset)
    ending = LINE_BREAK.search(text, starts[first - 1])
    newline = ending.group() if ending else "\n"
    unit = _indent_unit(text, starts, node, base)
    return _Region(node, starts[first - 1] + len(base), end, def_start, base, unit, newline)


def _candidate_def(new_function: str, original) -> Def:
    """Parse the candidate: exactly one def, same name, same async-ness as the original."""
    code = new_function.replace("\r\n", "\n").replace("\r", "\n")
    try:
        code, tree = parse_block(code)
    except SyntaxError as err:
        raise SpliceError(f"the function does not parse: {describe_syntax_error(err)}") from err
    body = tree.body
    if len(body) != 1 or not isinstance(body[0], DEF_TYPES):
        raise SpliceError(
            f"send exactly one function definition of `{original.name}`, nothing else"
        )
    node = body[0]
    if node.name != original.name:
        raise SpliceError(f"the function must keep its name `{original.name}`, not `{node.name}`")
    if isinstance(node, ast.AsyncFunctionDef) != isinstance(original, ast.AsyncFunctionDef):
        kind = (
            "stay `async def`" if isinstance(original, ast.AsyncFunctionDef) else "stay a plain def"
        )
        raise SpliceError(f"`{original.name}` must {kind}")
    if node.decorator_list and _roles(original) and _roles(node) != _roles(original):
        roles = " ".join(f"@{r}" for r in sorted(_roles(original)))
        raise SpliceError(
            f"this `{original.name}` is the {roles} one; send that definition, same decorators"
        )
    node.heal_source = node_source(code, node)  # type: ignore[union-attr]  # column 0
    return node


def _roles(node) -> set[str]:
    """Decorators that say which of several same-named defs this is (getter, setter, overload)."""
    names = {ast.unparse(d) for d in node.decorator_list}
    return {n for n in names if _ROLE.match(n)}


def _new_node_text(text: str, region: _Region, node) -> str:
    """The replacement for text[region.start:region.end], original decorators kept if dropped."""
    source = node.heal_source
    kept = ""
    if region.node.decorator_list and not node.decorator_list:
        kept = text[region.start : region.def_start]
    if kept:
        source = "\n".join(source.split("\n")[node.lineno - first_line(node) :])
    try:
        lines = reindent(source, region.base.replace("\f", ""), region.unit)
    except (tokenize.TokenError, SyntaxError) as err:
        raise SpliceError(f"the function cannot be tokenized: {err}") from err
    lines[0] = lines[0].lstrip(" \t")
    return kept + region.newline.join(lines)


def _prove(before: str, after: str, region: _Region, new_len: int, path: str) -> None:
    """Check the spliced module: compiles, same def in place, all text outside the node kept."""
    try:
        tree = parse_module(after)
        compile_module(tree, path)
    except SyntaxError as err:
        was = "even before the edit" if not compiles(before, path) else "after the edit"
        raise SpliceError(
            f"the module does not compile {was}: {describe_syntax_error(err)}"
        ) from err
    node = region.node
    new = next((n for _, n in qualified_defs(tree) if first_line(n) == first_line(node)), None)
    if new is None or new.name != node.name or type(new) is not type(node):
        raise SpliceError(f"after the edit, `{node.name}` is not where it was")
    moved = _region(after, new)
    end = region.start + new_len
    if moved.start != region.start or moved.end != end:
        raise SpliceError("the new function does not end where the replaced text ends")
    if after[: region.start] != before[: region.start] or after[end:] != before[region.end :]:
        raise SpliceError("the edit changed text outside the function")


def _indent_unit(text: str, starts: list[int], node, base: str) -> str:
    """The function's own indent step, read from its first body line; tabs or 4 spaces if unknown."""
    body_line = line_at(text, starts, node.body[0].lineno)
    lead = leading_space(body_line).replace("\f", "")
    plain_base = base.replace("\f", "")
    if node.body[0].lineno > node.lineno and lead.startswith(plain_base) and lead != plain_base:
        return lead[len(plain_base) :]
    return "\t" if "\t" in plain_base or "\n\t" in text else "    "


@functools.lru_cache(maxsize=4)
def _defs_by_line(tree: ast.Module) -> dict[int, Def]:
    """Each def by its first line and by its `def` line, outermost first (one walk per tree)."""
    found: dict[int, Def] = {}
    for _, node in qualified_defs(tree):
        found.setdefault(first_line(node), node)
        found.setdefault(node.lineno, node)
    return found


@functools.lru_cache(maxsize=4)
def _parse_cached(text: str) -> ast.Module:
    # The heal loop splices several candidates into the same module text: parse it once.
    return parse_module(text)
