"""Benchmark suites: the bundled examples/bench bugs.

The loader returns BenchCase objects; nothing here runs code. A case names the module holding
the bug, the function's qualname, the reference fix (a def at column 0), the tests to run and,
for the bundled bugs, a hidden test file the heal never sees (`<folder>/hidden/test_hidden_<bug>.py`,
outside the bug's project folder), run on the healed code afterwards.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from heal_ls.pysource.parse import DEF_TYPES, first_line

EXAMPLES_BENCH = Path(__file__).resolve().parents[3] / "examples" / "bench"
_TARGET = re.compile(r"target:\s*(?P<module>\S+?\.py)::(?P<qualname>\S+)")


class SuiteError(Exception):
    """A suite folder that is missing or malformed (one clear line)."""


@dataclass
class BenchCase:
    name: str
    root: str  # the project folder the tests run in
    target: str  # absolute path of the module holding the bug
    qualname: str
    reference_source: str  # the fixed function, a def at column 0
    tests: list[str] = field(default_factory=list)  # paths/nodeids relative to root; [] = all
    suite: str = "examples"
    # A fix that needs more than the target (other functions, a helper, imports): the whole
    # reference file, every def and import of which belongs in the fixed module. "" = target only.
    reference_module_code: str = ""
    # Tests of the same function the heal never sees (absolute path, outside root); "" = none.
    hidden_tests: str = ""


def examples_suite(folder: str | Path | None = None) -> list[BenchCase]:
    """One case per `<folder>/<bug>/` holding reference.py (its docstring names the target)."""
    folder = Path(folder or EXAMPLES_BENCH)
    if not folder.is_dir():
        raise SuiteError(f"no benchmark folder at {folder}")
    cases = [_example_case(d) for d in sorted(folder.iterdir()) if (d / "reference.py").is_file()]
    if not cases:
        raise SuiteError(f"no bugs (folders with reference.py) in {folder}")
    for case in cases:
        hidden = folder / "hidden" / f"test_hidden_{case.name}.py"
        case.hidden_tests = str(hidden) if hidden.is_file() else ""
    return cases


def _example_case(bug: Path) -> BenchCase:
    text = (bug / "reference.py").read_text(encoding="utf-8")
    tree = ast.parse(text)
    doc = ast.get_docstring(tree) or ""
    match = _TARGET.search(doc)
    defs = [n for n in tree.body if isinstance(n, DEF_TYPES)]
    name = match["qualname"].rsplit(".", 1)[-1] if match else None
    target = [n for n in defs if n.name == name]
    if match is None or len(target) != 1:
        raise SuiteError(f"{bug}/reference.py needs 'target: <module>.py::<qualname>' and its def")
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    return BenchCase(
        name=bug.name,
        root=str(bug),
        target=str(bug / match["module"]),
        qualname=match["qualname"],
        reference_source=_def_source(text, target[0]),
        reference_module_code=text if len(defs) > 1 or imports else "",
    )


def _def_source(text: str, node: Any) -> str:
    """The def's lines, decorators included, exactly as written."""
    first = first_line(node)
    lines = text.splitlines(keepends=True)
    return "".join(lines[first - 1 : node.end_lineno])


def load_suite(suite: str = "examples", *, only=()) -> list[BenchCase]:
    if suite != "examples":
        raise SuiteError(f"unknown suite {suite!r} (examples)")
    cases = examples_suite()
    if only:
        unknown = set(only) - {c.name for c in cases}
        if unknown:
            raise SuiteError(f"no such bug(s): {', '.join(sorted(unknown))}")
        cases = [c for c in cases if c.name in set(only)]
    return cases
