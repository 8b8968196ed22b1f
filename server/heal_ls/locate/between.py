"""The act between a check that held and the same check failing (class S).

The failing line is a check (an `assert`, an assertion call) comparing an expression
(`get_event_loop()`, `len(docstring.params)`, `obj.attr`, `d["k"]`) that an earlier check of
the same test compared too, and that earlier check held: it ran (every block holding it holds
the failing line as well) and the test went on. What the test did between the two checks
changed the value the expression reads, so the calls of those acts, nearest the failing check
first, are where the change went wrong (`hub.close()` between `assert get_event_loop() is hub`
and `assert get_event_loop() is None`). An act is a call made for its effect, a new value for
a name the expression reads, or a method called on one; reading an attribute is none (a
property only reads), nor is a value made only to be stored elsewhere.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from heal_ls.locate.blocks import BLOCK_LISTS
from heal_ls.locate.calls import call_names, statement_parts
from heal_ls.locate.flow import is_check, statements_before_line
from heal_ls.locate.index import FunctionNode
from heal_ls.locate.operators import ClassTable
from heal_ls.locate.state import class_of
from heal_ls.pysource.parse import name_of, statements_holding

# what a comparison reads that the test's acts may change: not a plain name nor a literal
_EXPRESSIONS = (ast.Call, ast.Attribute, ast.Subscript)


def compared_expressions(statement: ast.stmt) -> dict[str, ast.expr]:
    """The expressions a check compares, by their `ast.dump` (equal texts are equal): the
    operands of an `assert`'s comparisons, the values an assertion call is given
    (`self.assertEqual(next(s), '1')`: `next(s)`)."""
    if isinstance(statement, ast.Assert):
        compared = [statement.test]
    elif is_check(statement) and isinstance(statement, ast.Expr):
        compared = statement.value.args[:2] if isinstance(statement.value, ast.Call) else []
    else:
        return {}
    operands = [*compared]
    operands += [
        operand
        for part in compared
        for node in ast.walk(part)
        if isinstance(node, ast.Compare)
        for operand in (node.left, *node.comparators)
    ]
    return {ast.dump(o): o for o in operands if isinstance(o, _EXPRESSIONS)}


@dataclass
class Act:
    """One statement of the test between the check that held and the failing one."""

    line: int
    names: list[str]  # what it calls (`calls.call_names`)
    # method -> what made the test's local it is called on (`hub.close()` after `hub = Hub()`:
    # close -> Hub), when the test bound that local to a call's result
    receivers: dict[str, str] = field(default_factory=dict)


def acts_between_checks(tree: ast.Module, line: int) -> tuple[int, list[Act]]:
    """(the line of the check that held, each statement between it and the failing check at
    `line` that calls something, nearest the failing check first); (0, []) when the failing
    line is no such check. Checks between the two are not acts: they passed and changed
    nothing."""
    parts = statement_parts(tree.body, line)
    failing = next((p for p in parts if isinstance(p, ast.stmt) and is_check(p)), None)
    compared = compared_expressions(failing) if failing is not None else {}
    if failing is None or not compared:
        return 0, []
    earlier = statements_before_line(tree, failing.lineno)
    function = _function_holding(tree, failing)
    held = [
        s
        for s in earlier
        if compared.keys() & compared_expressions(s).keys() and function is not None
        and _surely_ran(function, s, failing)
    ]  # fmt: skip
    if not held:
        return 0, []
    last = max(held, key=lambda s: s.lineno)
    shared = [compared[k] for k in compared.keys() & compared_expressions(last).keys()]
    reads = {n.id for e in shared for n in ast.walk(e) if isinstance(n, ast.Name)}
    between = [s for s in earlier if s.lineno > (last.end_lineno or last.lineno)]
    between.sort(key=lambda s: -s.lineno)
    acts = [
        Act(s.lineno, names, _receivers(function, s))
        for s in between
        if not is_check(s) and _acts_on(s, reads) and (names := call_names([s]))
    ]
    return last.lineno, acts


def _acts_on(statement: ast.stmt, reads: set[str]) -> bool:
    """Can `statement` change what an expression reading the names `reads` computes? A call
    made for its effect (`hub.close()`), a new value for a name it reads (`docstring =
    parse(...)`), a method called on one (`n = cache.pop(k)`). A call whose value is only
    stored elsewhere (`registry[K] = make(...)`, `writer2 = PdfWriter()`) made a value, not
    the change."""
    if isinstance(statement, ast.Expr):
        return True
    bound = {
        n.id
        for n in ast.walk(statement)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    called_on = {
        n.func.value.id
        for n in ast.walk(statement)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and isinstance(n.func.value, ast.Name)
    }
    return bool((bound | called_on) & reads)


def _receivers(function: ast.AST | None, statement: ast.stmt) -> dict[str, str]:
    """Of the methods `statement` calls on a plain name, those on a local the test bound to a
    call's result before it (`hub = Hub()`), each with the callable that made the local."""
    made: dict[str, tuple[int, str]] = {}  # local -> (line, maker) of its latest binding
    for node in ast.walk(function) if function is not None else ():
        if not (isinstance(node, ast.Assign) and node.lineno < statement.lineno):
            continue
        maker = name_of(node.value.func) if isinstance(node.value, ast.Call) else None
        for target in node.targets:
            if isinstance(target, ast.Name) and node.lineno > made.get(target.id, (0, ""))[0]:
                made[target.id] = (node.lineno, maker or "")
    return {
        node.func.attr: made[receiver][1]
        for node in ast.walk(statement)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and (receiver := node.func.value.id) in made
        and made[receiver][1]
    }


def wrong_receiver(table: ClassTable, receivers: dict[str, str], node: FunctionNode) -> bool:
    """Is `node` a method of a class other than the one (or a base of the one) that made the
    local the act calls its name on? (`hub.close()` after `hub = Hub()` runs `Hub.close`, not
    `_epoll.close`.) False when the maker is no class of ours."""
    maker = receivers.get(node.name)
    classes = table.lineage([maker]) if maker else set()
    return bool(classes) and class_of(node.qualname) not in classes


def _function_holding(tree: ast.Module, statement: ast.stmt) -> ast.AST | None:
    """The innermost def whose body holds `statement` (by lines: no walk of the module)."""
    holding = [
        node
        for node in statements_holding(tree, statement.lineno)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    return holding[-1] if holding else None


def _surely_ran(function: ast.AST, statement: ast.stmt, failing: ast.stmt) -> bool:
    """Did `statement` run whenever the `failing` statement, later in `function`, did? Each
    block holding it must hold the failing statement too: not a branch, a handler or a loop
    the failing statement is outside of, nor a `with` block that closed between them (its
    exit, an act no statement shows, ran in between)."""
    for block in _blocks_holding(function, statement):
        first, last = block[0].lineno, block[-1].end_lineno or block[-1].lineno
        if not first <= failing.lineno <= last:
            return False
    return True


def _blocks_holding(node: ast.AST, statement: ast.stmt) -> Iterator[list]:
    """The statement lists (blocks) from `node`'s down to the one holding `statement`."""
    for key in BLOCK_LISTS:
        block = getattr(node, key, None)
        if not isinstance(block, list):
            continue
        for child in block:
            if child is statement:
                yield block
                return
            if any(statement is s for s in ast.walk(child)):
                yield block
                yield from _blocks_holding(child, statement)
                return
