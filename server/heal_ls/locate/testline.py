"""The failing test line read for suspects: what it calls, what computed the values it checks,
and, when it checks what no call of ours returned, the act just before it."""

from __future__ import annotations

import ast

from heal_ls.locate.calls import imported_functions, matches, names_on_line, wrappers_of
from heal_ls.locate.flow import calls_before_line, names_feeding_line
from heal_ls.locate.index import FunctionNode
from heal_ls.pysource.paths import is_test_file

Pool = list[tuple[str, FunctionNode]]


def line_suspects(tree: ast.Module, test_path: str, test_line: int, covered: Pool, root: str):
    """(called on the line, computed what it checks), resolved against the functions the test
    ran, or without a record of those, the functions of the modules the test imports."""
    pool = covered or [
        (path, node)
        for path, node in imported_functions(tree, test_path, root)
        if not is_test_file(path, root)
    ]
    on_line = names_on_line(tree, test_line)
    on_line += wrappers_of(tree, on_line)
    feeding = names_feeding_line(tree, test_line)
    return resolve(on_line, pool), resolve(feeding, pool)


def acted_before(tree: ast.Module, test_line: int, covered: Pool) -> Pool:
    """The functions the test ran that its nearest earlier statement calling any of them
    called: the act whose effect a check of captured output or of a recorder reads."""
    for names in calls_before_line(tree, test_line):
        found = resolve(names, covered)
        if found:
            return found
    return []


def resolve(names: list[str], pool: Pool) -> Pool:
    return [(path, node) for name in names for path, node in pool if matches(name, node)]
