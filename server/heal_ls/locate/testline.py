"""The failing test line read for suspects: what it calls, what computed the values it checks,
and, when it checks what no call of ours returned, the act just before it."""

from __future__ import annotations

import ast
import re

from heal_ls.locate.calls import imported_functions, matches, names_on_line, wrappers_of
from heal_ls.locate.flow import calls_before_line, calls_given, locals_at, names_feeding_line
from heal_ls.locate.index import FunctionNode
from heal_ls.pysource.paths import TestFiles

Pool = list[tuple[str, FunctionNode]]

# Dunders that only read (or render) an object's state: less likely to hold the bug than what
# changed it.
ACCESSORS = {"__len__", "__contains__", "__getitem__", "__iter__", "__eq__", "__bool__"}
ACCESSORS |= {"__str__", "__repr__"}
# pytest's explanation of a failed assert names what each call on the line was
_BUILT_IN = re.compile(r"<built-in method (\w+) of ")


def line_suspects(
    tree: ast.Module, test_path: str, test_line: int, covered: Pool, tests: TestFiles
):
    """(called on the line, computed what it checks), resolved against the functions the test
    ran, or without a record of those, the functions of the modules the test imports."""
    pool = covered or [
        (path, node)
        for path, node in imported_functions(tree, test_path, tests.root)
        if path not in tests
    ]
    on_line = names_on_line(tree, test_line, locals_at(tree, test_line))
    on_line += wrappers_of(tree, on_line)
    feeding = names_feeding_line(tree, test_line)
    return resolve(on_line, pool), resolve(feeding, pool)


def built_in_calls(message: str) -> set[str]:
    """The methods pytest's explanation of the failed assert shows were built-ins (`where -3599.0
    = <built-in method timestamp of datetime.datetime object at 0x...>()`): the failing line's
    call of that name ran Python's, not a def of ours of the same name (FakeDatetime.timestamp
    did not run there: fromtimestamp returned a real datetime)."""
    return set(_BUILT_IN.findall(message))


HANDED = "was handed the object the failing check {where} reads"
ACTED = "called just before the failing check {where}, which reads its effect"


def acted_before(tree: ast.Module, test_line: int, covered: Pool) -> tuple[Pool, str]:
    """(the functions, why) of the act whose effect a check of captured output or of a recorder
    reads: the calls the checked object was handed to (`cached(cache, lock=lock)` before
    `assert lock.count == 2`), else those of the nearest earlier statement calling ours (a dunder
    that only reads, like `len(cache)`, aside)."""
    acts = ((HANDED, calls_given(tree, test_line)), (ACTED, calls_before_line(tree, test_line)))
    for why, statements in acts:
        for names in statements:
            found = [(p, n) for p, n in resolve(names, covered) if n.name not in ACCESSORS]
            if found:
                return found, why
    return [], ""


def resolve(names: list[str], pool: Pool) -> Pool:
    return [(path, node) for name in names for path, node in pool if matches(name, node)]
