"""The sibling test modules of a failing test's file: the contrast of a run that has none.

`heal-ls check --test tests/a/test_x.py::test_y` runs test_x.py whole, so its other passing
tests contrast the failure (testing/focus.py). A module that holds only failing tests gives no
contrast: every function the tests ran sits at Ochiai 1.00 and the function the test calls ties
with the callee that holds the bug. When neither an earlier run nor the impact map lends a
passing test of those functions (locate/contrast.py), the failing file's siblings (the test
modules of its own folder that import the same package of the workspace) are the likeliest to
run the same code and pass: a few of them, the closest first (the most imported names shared
with the failing file, then the smallest), run once, traced, within a time budget.

    files = sibling_modules(root, ["tests/a/test_x.py"])
    run = await run_pytest(root, sibling_options(options), nodeids=files)
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from heal_ls.pysource.parse import imported_names
from heal_ls.pysource.paths import TOP_LEVEL_TEST
from heal_ls.testing.options import RunOptions

MAX_SIBLINGS = 4  # modules run for contrast: enough to cover the shared code, few to run fast
SIBLING_SECONDS = 20.0  # the sibling run's budget: what it has not reached by then is left out
_HOLDS_TESTS = re.compile(TOP_LEVEL_TEST)
_NOT_TESTS = {"conftest.py", "__init__.py"}


@dataclass(frozen=True)
class TestModule:
    """A test module's imports, as far as picking siblings needs them."""

    __test__ = False  # not a pytest test class for the test modules that import it

    rel: str  # relative to the root, `/`-separated
    size: int
    imported: frozenset[str]  # dotted names: `import a.b` -> a.b; `from a import b` -> a, a.b
    holds_tests: bool

    @classmethod
    def read(cls, root: str, rel: str) -> TestModule | None:
        path = os.path.join(root, rel)
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
            tree = ast.parse(text)
        except (OSError, SyntaxError, ValueError):
            return None
        # the top level's: a test function's own import is no sign of what the module tests
        imported = frozenset(imported_names(ast.iter_child_nodes(tree)))
        return cls(rel, len(text), imported, _HOLDS_TESTS.search(text) is not None)

    def packages(self, root: str) -> set[str]:
        """The workspace's top-level packages (or modules) this module imports."""
        return {name.split(".", 1)[0] for name in self.imported if _in_workspace(root, name)}


def sibling_modules(
    root: str, failing_files: Sequence[str], limit: int = MAX_SIBLINGS
) -> list[str]:
    """Up to `limit` test modules (relative to `root`) of the failing files' folders, not
    the failing files, that import a workspace package one of them imports: the most imported
    names shared first, then the smallest (the fastest to run), then by name."""
    failing = [rel.replace(os.sep, "/") for rel in failing_files if rel.endswith(".py")]
    ranked: dict[str, tuple[int, int, str]] = {}
    for rel in failing:
        module = TestModule.read(root, rel)
        if module is None or not module.packages(root):
            continue
        for sibling in _siblings(root, rel, set(failing)):
            if not sibling.holds_tests or module.packages(root).isdisjoint(sibling.packages(root)):
                continue
            key = (-len(module.imported & sibling.imported), sibling.size, sibling.rel)
            ranked[sibling.rel] = min(key, ranked.get(sibling.rel, key))
    return sorted(ranked, key=ranked.__getitem__)[:limit]


def sibling_options(options: RunOptions) -> RunOptions:
    """The sibling run's options: traced with blocks as the evidence's, within its budget,
    under the project's pytest-xdist when its config asks for it (`spread`), and never in the
    user's pytest cache (their lastfailed is about their runs)."""
    budget = min(options.run_timeout, SIBLING_SECONDS) if options.run_timeout else SIBLING_SECONDS
    return replace(options, run_timeout=budget, spread=True, user_cache=False)


def _siblings(root: str, rel: str, failing: set[str]) -> Iterator[TestModule]:
    folder = os.path.dirname(rel)
    try:
        names = sorted(os.listdir(os.path.join(root, folder)))
    except OSError:
        return
    for name in names:
        sibling = f"{folder}/{name}" if folder else name
        if name.endswith(".py") and name not in _NOT_TESTS and sibling not in failing:
            module = TestModule.read(root, sibling)
            if module is not None:
                yield module


def _in_workspace(root: str, dotted: str) -> bool:
    """Is the top of `dotted` a package or module of the workspace (flat or src/ layout)?"""
    top = dotted.split(".", 1)[0]
    return any(
        os.path.isfile(os.path.join(base, top, "__init__.py"))
        or os.path.isfile(os.path.join(base, f"{top}.py"))
        for base in (root, os.path.join(root, "src"))
    )
