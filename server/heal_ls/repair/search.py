"""Rank every single mutation of a function, then pairs of them, and yield the edited sources lazily.

Order: all first-order mutations by cost (kind likelihood plus distance from the focus lines;
equal costs: the smaller edit in tokens first), known overfitting shapes (repair/shapes.py)
after all others, then second-order pairs of the most likely ones, by summed cost. Each
candidate is simplified (`x - 0` -> `x`, repair/simplify.py) and yielded only if it compiles and
its normalised form (the compiled code minus line numbers) is new; the original counts as seen.
"""

from __future__ import annotations

import ast
import heapq
import itertools
import re
import types
import warnings
from collections.abc import Iterable, Iterator

from heal_ls.repair import conditions, guard_clauses, operators, statements, templates, values
from heal_ls.repair.simplify import simplified
from heal_ls.repair.snippet import Edit, Mutation, Snippet, overlaps

GENERATORS = (
    operators.GENERATORS
    + values.GENERATORS
    + guard_clauses.GENERATORS
    + templates.GENERATORS
    + statements.GENERATORS
    + conditions.GENERATORS
)
DISTANCE_WEIGHT = 0.4  # cost per line away from the nearest focus line
MAX_DISTANCE = 8
PAIR_POOL = 60  # second order pairs come from this many most likely single mutations
SHAPE_PENALTY = 3.0  # a pair with an overfitting shape in it comes after pairs without
_TOKEN = re.compile(r"\w+|==|!=|<=|>=|\*\*|//|<<|>>|[-+*/%&|^@]=|[^\w\s]")


def first_order(snip: Snippet, focus: Iterable[int] = ()) -> list[Mutation]:
    """Every single mutation, most likely first; equal costs: the smallest edit, then the
    generators' order. Known overfitting shapes come after all the others."""
    focus = sorted(set(focus))
    ranked = []
    for index, mutation in enumerate(m for gen in GENERATORS for m in gen(snip)):
        distance = min((abs(mutation.line - f) for f in focus), default=0)
        cost = mutation.cost + DISTANCE_WEIGHT * min(distance, MAX_DISTANCE)
        size = edit_tokens(snip.text, mutation.edits)
        ranked.append(((bool(mutation.shape), round(cost, 6), size, index), cost, mutation))
    ranked.sort(key=lambda item: item[0])
    return [Mutation(m.kind, m.edits, m.line, cost, m.shape) for _, cost, m in ranked]


def edit_tokens(text: str, edits: Iterable[Edit]) -> int:
    """How many tokens the edits remove plus add (tokens both sides share at the ends are
    unchanged): `- 1` -> `- 0` is 2, `x - 1` -> `x` is 2, `<` -> `<=` is 2."""
    total = 0
    for edit in edits:
        old, new = _TOKEN.findall(text[edit.start : edit.end]), _TOKEN.findall(edit.text)
        while old and new and old[0] == new[0]:
            old, new = old[1:], new[1:]
        while old and new and old[-1] == new[-1]:
            old, new = old[:-1], new[:-1]
        total += len(old) + len(new)
    return total


def second_order(singles: list[Mutation]) -> Iterator[tuple[Mutation, Mutation]]:
    """Non-overlapping pairs of the most likely singles, cheapest sum first (a pair holding an
    overfitting shape after those without)."""
    pool = singles[:PAIR_POOL]
    pairs = [
        (a.cost + b.cost + SHAPE_PENALTY * (bool(a.shape) + bool(b.shape)), i, j)
        for (i, a), (j, b) in itertools.combinations(enumerate(pool), 2)
        if not overlaps(a.edits, b.edits)
    ]
    heapq.heapify(pairs)
    while pairs:
        _, i, j = heapq.heappop(pairs)
        yield pool[i], pool[j]


def normalised(source: str) -> tuple | None:
    """A key equal for sources that compile to the same code, whatever their formatting
    (the compiled code without positions); None when the source does not compile."""
    try:
        with warnings.catch_warnings():  # e.g. "is" with a literal: not our user's code
            warnings.simplefilter("ignore")
            text = _parseable(source)
            if "nonlocal" in text:  # a nested def's nonlocal needs an enclosing scope
                code = compile(_inside_a_function(ast.parse(text)), "<candidate>", "exec")
            else:
                code = compile(text, "<candidate>", "exec")
    except (SyntaxError, ValueError):
        return None
    return _code_key(code)


def _code_key(code: types.CodeType) -> tuple:
    """Everything that decides what the code does, nothing about where it was written.
    (Not marshal: its output depends on reference counts.)"""
    consts = tuple(
        _code_key(c) if isinstance(c, types.CodeType) else (type(c).__name__, repr(c))
        for c in code.co_consts
    )
    shape = (code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, code.co_flags)
    names = (code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars, code.co_name)
    handlers = getattr(code, "co_exceptiontable", b"")  # 3.11+: bytecode offsets, no lines
    return code.co_code, handlers, consts, names, shape


def _inside_a_function(tree: ast.Module) -> ast.Module:
    """The code as the body of a def binding the nonlocal names, so that it compiles."""
    free = sorted(
        {n for node in ast.walk(tree) if isinstance(node, ast.Nonlocal) for n in node.names}
    )
    bindings = ast.parse(" = ".join(free) + " = None").body if free else []
    wrapper = ast.parse("def _heal_scope_():\n    pass\n")
    wrapper.body[0].body = bindings + tree.body  # type: ignore[attr-defined]
    return wrapper


def _parseable(source: str) -> str:
    return "if True:\n" + source if source[:1] in (" ", "\t") else source


def mutants(source: str, focus: Iterable[int] = (), second: bool = True) -> Iterator[str]:
    """Edited versions of one function source, ranked and deduplicated; lazily generated.

    `focus` holds line numbers counted like the source (1 = its first line)."""
    return (text for text, _ in labelled(source, focus, second))


def labelled(
    source: str, focus: Iterable[int] = (), second: bool = True
) -> Iterator[tuple[str, str]]:
    """mutants() with the kind of mutation that made each one (`compare`, `name`, ...; a pair
    of mutations as `kind+kind`): what the benchmarks count per operator."""
    snip = Snippet(source)
    seen = {normalised(source)}
    header_end = snip.user_line(snip.func.body[0]) - 1  # focus on the def line says nothing
    singles = first_order(snip, [line for line in focus if line > header_end])
    edit_sets: Iterator[tuple[tuple[Edit, ...], str]] = ((m.edits, m.kind) for m in singles)
    if second:
        pairs = ((a.edits + b.edits, f"{a.kind}+{b.kind}") for a, b in second_order(singles))
        edit_sets = itertools.chain(edit_sets, pairs)
    for edits, kind in edit_sets:
        text = simplified(snip.apply(edits), source)
        key = normalised(text)
        if key is not None and key not in seen:
            seen.add(key)
            yield text, kind
