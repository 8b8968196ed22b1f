"""Values checked on a failing test line, traced back to the calls in the test that made them.

result = compute(order)        # <- `compute` is suspect too
cart.add(item)                 # <- so is a method called on what the line checks, first
assert result.total == 30      # the failing line calls nothing of ours
"""

from __future__ import annotations

import ast
from typing import Any

from heal_ls.locate.calls import RETURNED, call_names, property_reads, statement_parts
from heal_ls.locate.operators import operator_calls
from heal_ls.pysource.parse import DEF_TYPES, name_of, statements_holding

MAX_HOPS = 3  # follow `a = f(); b = g(a); assert b` a few steps, no further


def names_feeding_line(tree: ast.Module, line: int, reads: set[str] | None = None) -> list[str]:
    """Names called, earlier in the same test function, to compute what `line` reads (or only
    the `reads` named)."""
    function = _enclosing_function(tree.body, line)
    if function is None:
        return []
    wanted = _reads(statement_parts(tree.body, line)) if reads is None else reads
    assignments = sorted(_assignments(function, line), key=lambda a: -a[0])  # nearest first
    setups = _setups(tree.body, function)  # unittest setUp, pytest setup_method: after
    for setup in setups:
        end = (setup.end_lineno or setup.lineno) + 1
        assignments += sorted(_assignments(setup, end), key=lambda a: -a[0])
    found: list[str] = _methods_called_on(function, line, wanted)
    loops = _loop_dunders([function, *setups])  # where the assignments are, not the module
    seen = set(wanted)
    for _ in range(MAX_HOPS):
        following: set[str] = set()
        for _lineno, targets, value in assignments:
            if targets & wanted:
                found.extend(call_names([value]) + loops.get(id(value), []))
                following |= _reads([value])
        wanted = following - seen
        seen |= wanted
        if not wanted:
            break
    return list(dict.fromkeys(found))


def _loop_dunders(scopes: list[Any]) -> dict[int, list[str]]:
    """A loop's target is what the iterator's `__next__` returned (`async for attempt in
    Retrying()`: `__anext__`), from the iterator `__iter__` made: by the id of each loop's
    iterable, for the loops in `scopes` (defs)."""
    return {
        id(node.iter): (
            ["__anext__", "__aiter__"]
            if isinstance(node, ast.AsyncFor)
            else ["__next__", "__iter__"]
        )
        for scope in scopes
        for node in ast.walk(scope)
        if isinstance(node, (ast.For, ast.AsyncFor))
    }


def handed_to(tree: ast.Module, line: int, callee: str) -> set[str] | None:
    """The names the statement at `line` reads in the arguments of its calls of `callee`
    (`handler.whitespace(depth * indent)` -> depth, indent; not handler, the object called);
    None when no call on the line is named `callee`."""
    calls = [
        node
        for part in statement_parts(tree.body, line)
        for node in ast.walk(part)
        if isinstance(node, ast.Call) and name_of(node.func) == callee
    ]
    if not calls:
        return None
    return _reads([a for c in calls for a in [*c.args, *(k.value for k in c.keywords)]])


def quoted_names(tree: ast.Module, line: int, values: dict[str, str], message: str) -> set[str]:
    """The names the statement at `line` reads whose recorded `values` (their reprs) the
    exception's `message` quotes (`typing.Self cannot be used with issubclass()`, the value of
    `expected_class`): the value the refusal names."""
    read = _reads(statement_parts(tree.body, line))
    return {name for name in read if name in values and values[name] in message}


def calls_before_line(tree: ast.Module, line: int, dunders=False) -> list[list[str]]:
    """The names each earlier statement of the test calls, nearest statement first: when the
    failing line checks what no call of ours returned (`out, err = capfd.readouterr()`), the
    call just before it (`confirm(...)`) made the effect it checks. Calling a local bound to a
    call's result (`mf = memoize(f)`, then `mf(2, 3)`) calls what that function returned;
    reading a property (`result = req.POST`) runs it as a call would. With `dunders`, the
    dunders its operators and builtins call too (`next(buffer)`: `__next__`)."""
    function = _enclosing_function(tree.body, line)
    if function is None:
        return []
    made: dict[str, str] = {}
    for _lineno, targets, value in sorted(_assignments(function, line), key=lambda a: a[0]):
        maker = value.func if isinstance(value, ast.Call) else None
        for target in targets:
            made.pop(target, None)
            if isinstance(maker, ast.Name):
                made[target] = f"{maker.id}{RETURNED}"
    statements = [s for s in _own_statements(function) if (s.end_lineno or s.lineno) < line]
    statements.sort(key=lambda s: -s.lineno)
    found = []
    for statement in statements:
        names = call_names([statement])
        names += [made[n] for n in names if n in made]
        names += property_reads(statement)
        names += [call.dunder for call in operator_calls([statement])] if dunders else []
        if names:
            found.append(names)
    return found


def statements_before_line(tree: ast.Module, line: int) -> list[ast.stmt]:
    """The simple statements the test ran before the failing `line`, in its own body."""
    function = _enclosing_function(tree.body, line)
    if function is None:
        return []
    return [s for s in _own_statements(function) if (s.end_lineno or s.lineno) < line]


def names_called_up_to(tree: ast.Module, line: int) -> set[str]:
    """The last names of what the test function holding `line` calls up to that line, the
    `with` around it included (`with Parallel(n_jobs=None) as p:`): a class among them is one
    whose object the test made itself, with arguments it chose."""
    function = _enclosing_function(tree.body, line)
    return {
        (name_of(node.func) or "").rsplit(".", 1)[-1]
        for node in (ast.walk(function) if function is not None else [])
        if isinstance(node, ast.Call) and node.lineno <= line
    }


def is_check(statement: ast.stmt) -> bool:
    """Is the statement a check: an `assert`, or an assertion call (`self.assertEqual(...)`,
    `assert_that(...)`)? One the test ran before its failing line passed."""
    if isinstance(statement, ast.Assert):
        return True
    call = statement.value if isinstance(statement, ast.Expr) else None
    name = name_of(call.func) if isinstance(call, ast.Call) else None
    return name is not None and name.lower().startswith("assert")


def locals_at(tree: ast.Module, line: int) -> frozenset[str]:
    """The plain names the test function holding `line` binds: its parameters (fixtures,
    parametrize arguments) and what it assigns."""
    function = _enclosing_function(tree.body, line)
    if function is None:
        return frozenset()
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    names = {a.arg for a in every}
    for _lineno, targets, _value in _assignments(function, (function.end_lineno or line) + 1):
        names |= {t for t in targets if "." not in t}
    return frozenset(names)


def calls_given(tree: ast.Module, line: int) -> list[list[str]]:
    """The names each earlier statement calls that hands a call an object `line` reads
    (`wrapper = cached(cache, lock=lock)(f)` before `assert lock.count == 2`), nearest first."""
    function = _enclosing_function(tree.body, line)
    if function is None:
        return []
    wanted = {n for n in _reads(statement_parts(tree.body, line)) if "." not in n} - {"self", "cls"}
    found = []
    for statement in sorted(_own_statements(function), key=lambda s: -s.lineno):
        if (statement.end_lineno or statement.lineno) >= line:
            continue
        given = [
            arg
            for call in ast.walk(statement)
            if isinstance(call, ast.Call)
            for arg in [*call.args, *(k.value for k in call.keywords)]
        ]
        if any(isinstance(a, ast.Name) and a.id in wanted for a in given):
            found.append(call_names([statement]))
    return found


def _own_statements(function: Any) -> list[ast.stmt]:
    """The simple statements of `function`'s body at any depth, not those of nested defs."""
    found: list[ast.stmt] = []
    pending = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        bodies = [getattr(node, key, None) or [] for key in ("body", "orelse", "finalbody")]
        bodies += [h.body for h in getattr(node, "handlers", [])]
        if any(bodies):
            pending.extend(s for body in bodies for s in body)
        else:
            found.append(node)
    return found


def _methods_called_on(function: Any, line: int, names: set[str]) -> list[str]:
    """Methods called on the checked objects before `line` (`inv.remove(...)`), nearest first:
    they changed the state the line checks, so they are likelier culprits than constructors."""
    calls = [
        (node.lineno, node.func.attr)
        for node in ast.walk(function)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in names
        and node.lineno < line
    ]
    calls += [  # `cache[k] = v`, `del cache[k]`: __setitem__ / __delitem__ changed it too
        (node.lineno, _SUBSCRIPT_CHANGES[type(node.ctx)])
        for node in ast.walk(function)
        if isinstance(node, ast.Subscript)
        and type(node.ctx) in _SUBSCRIPT_CHANGES
        and isinstance(node.value, ast.Name)
        and node.value.id in names
        and node.lineno < line
    ]
    return [name for _, name in sorted(calls, reverse=True)]


_SUBSCRIPT_CHANGES = {ast.Store: "__setitem__", ast.Del: "__delitem__"}


SETUP_NAMES = ("setUp", "setup_method", "setup", "asyncSetUp")


def _setups(body: list, function: Any) -> list[Any]:
    """The set-up methods of the class that holds `function` (a test method)."""
    for node in statements_holding(ast.Module(body=body, type_ignores=[]), function.lineno):
        if isinstance(node, ast.ClassDef) and function in node.body:
            return [
                m for m in node.body
                if isinstance(m, DEF_TYPES) and m.name in SETUP_NAMES
            ]  # fmt: skip
    return []


def _enclosing_function(body: list, line: int) -> Any:
    """The innermost def containing `line`."""
    best = None
    for node in body:
        if not node.lineno <= line <= (node.end_lineno or node.lineno):
            continue
        if isinstance(node, DEF_TYPES):
            best = node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                inner = _enclosing_function([child], line)
                best = inner or best
    return best


def _assignments(function: ast.AST, line: int):
    """(line, assigned names, value) for every binding in `function` before `line`."""
    for node in ast.walk(function):
        if getattr(node, "lineno", line) >= line:
            continue
        if isinstance(node, ast.Assign):
            yield node.lineno, _stores(node.targets), node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value:
            yield node.lineno, _stores([node.target]), node.value
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            yield node.lineno, _stores([node.target]), node.iter
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    yield node.lineno, _stores([item.optional_vars]), item.context_expr


def _stores(targets: list[Any]) -> set[str]:
    """Names bound: `x`, `self.x` (not `self`), `x` for `x[k] = ...`, unpacked tuples."""
    names: set[str] = set()
    for target in targets:
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            names |= _stores(target.elts)
        elif isinstance(target, (ast.Starred, ast.Subscript)):
            names |= _stores([target.value])
        elif _dotted(target):
            names.add(_dotted(target) or "")
    return names


def _reads(parts: list[ast.AST]) -> set[str]:
    """Local names and `self.attr`-style reads (`self.res = ...` feeds `self.res["id"]`)."""
    names = set()
    for part in parts:
        for node in ast.walk(part):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                names.add(_dotted(node) or "")
    return names - {""}


def _dotted(node: ast.AST) -> str | None:
    """`self.res` for an attribute of a plain name, else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def argument_reads(tree: ast.Module, line: int, callee: Any, params: set[str]) -> set[str]:
    """The names the call of `callee` (a def) at `line` reads to pass its `params`: for
    `ymd.append(value)` and `append(self, val)`, {"value"} for {"val"}. Every name the call's
    arguments read when they cannot be matched (a `*args`)."""
    return _reads([*passed_values(tree, line, callee, params)])


def passed_values(
    tree: ast.Module, line: int, callee: Any, params: set[str], called: str | None = None
) -> list[ast.expr]:
    """The expressions the call of `callee` (a def) at `line` passes as its `params`; every
    argument when they cannot be matched (behind a `*args`, or in a `**kwargs`), [] when no
    call of it is there.
    `called` is another name a call of it may use (the class of an `__init__`:
    `PythonCode(code)`)."""
    calls = [
        n
        for part in statement_parts(tree.body, line)
        for n in ast.walk(part)
        if isinstance(n, ast.Call) and name_of(n.func) in (callee.name, called)
    ]
    if not calls:
        return []
    call = calls[0]
    names = [a.arg for a in [*callee.args.posonlyargs, *callee.args.args]]
    bound = isinstance(call.func, ast.Attribute) or name_of(call.func) == called
    if names and names[0] in ("self", "cls") and bound:
        names = names[1:]  # bound: `obj.method(x)` passes x as the first after self
    starred = next((i for i, a in enumerate(call.args) if isinstance(a, ast.Starred)), None)
    passed = dict(zip(names, call.args[:starred]))  # those before a `*args` match by position
    passed.update({k.arg: k.value for k in call.keywords if k.arg})
    unmatched = starred is not None or any(k.arg is None for k in call.keywords)
    if unmatched and not params <= passed.keys():
        return [*call.args, *(k.value for k in call.keywords)]
    return [value for name, value in passed.items() if name in params]
