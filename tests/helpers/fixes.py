"""The examples' known fixes, read from examples/README.md (one row per example).

Tests use these to script the fake model's answers and to check that a heal produced the fix.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
_ROW = re.compile(
    r"^\| (?P<name>\w+) \| `(?P<path>[^`]+)` `(?P<qualname>[^`]+)` \|[^|]*\| (?P<line>\d+) \| "
    r"`(?P<buggy>[^`]+)` \| `(?P<fixed>[^`]+)` \|$"
)


@dataclass
class ExampleFix:
    name: str
    path: str  # relative to the example root
    qualname: str
    line: int
    buggy: str
    fixed: str

    def fixed_module(self, root: Path) -> str:
        text = (root / self.path).read_text()
        assert text.count(self.buggy) == 1, f"{self.buggy!r} must appear once in {self.path}"
        return text.replace(self.buggy, self.fixed)

    def fixed_function(self, root: Path) -> str:
        """The corrected def's source, as a model would answer it."""
        module = self.fixed_module(root)
        name = self.qualname.split(".")[-1]
        for node in ast.walk(ast.parse(module)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                lines = module.splitlines(keepends=True)
                start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
                snippet = "".join(lines[start - 1 : node.end_lineno])
                indent = len(snippet) - len(snippet.lstrip())
                return "".join(line[indent:] for line in snippet.splitlines(keepends=True))
        raise AssertionError(f"no def {name} in {self.path}")


def example_fixes() -> dict[str, ExampleFix]:
    fixes = {}
    for line in (EXAMPLES / "README.md").read_text().splitlines():
        match = _ROW.match(line.strip())
        if match:
            fix = ExampleFix(**{**match.groupdict(), "line": int(match["line"])})
            fixes[fix.name] = fix
    return fixes
