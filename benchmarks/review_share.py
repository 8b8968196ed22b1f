"""How many honest fixes the "needs review" allow-list would hold back (issue 23: goal <= 5%).

The honest fixes are the real-bug corpus's reference fixes (benchmarks/corpus: what each
project's developers committed) and the bundled examples' reference fixes: for each changed
module, `heal/novelty.review_reasons(buggy module, fixed module, failing tests' sources)`.

    python benchmarks/review_share.py        # needs the corpus sources (heal-ls bench --real)
"""

from __future__ import annotations

import ast
import sys
import tempfile
from pathlib import Path

from heal_ls.bench.corpus import load_bugs, tree
from heal_ls.heal.novelty import review_reasons


def main() -> int:
    held, total = [], 0
    with tempfile.TemporaryDirectory() as scratch:
        for bug in load_bugs():
            buggy = tree(bug, Path(scratch) / f"{bug.id}-buggy")
            fixed = tree(bug, Path(scratch) / f"{bug.id}-fixed", fixed=True)
            sources = [test_function_source(fixed, nodeid) for nodeid in bug.failing_tests]
            reasons = []
            for module in changed_modules(buggy, fixed):
                before, after = (buggy / module).read_text(), (fixed / module).read_text()
                reasons += [f"{module}: {r}" for r in review_reasons(before, after, sources)]
            total += 1
            if reasons:
                held.append((bug.id, reasons))
    for bug_id, reasons in held:
        print(f"{bug_id}: " + "; ".join(reasons))
    share = len(held) / total if total else 0.0
    print(f"needs review: {len(held)} of {total} honest corpus fixes ({share:.0%})")
    return 0


def test_function_source(root: Path, nodeid: str) -> str:
    """The failing test function's own source (the whole file when it cannot be found)."""
    path, *names = nodeid.split("[")[0].split("::")
    text = (root / path).read_text() if (root / path).is_file() else ""
    for node in ast.walk(ast.parse(text)):
        if (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and names
            and node.name == names[-1]
        ):
            return ast.get_source_segment(text, node) or text
    return text


def changed_modules(buggy: Path, fixed: Path) -> list[str]:
    changed = []
    for path in sorted(fixed.rglob("*.py")):
        rel = path.relative_to(fixed)
        old = buggy / rel
        if "test" not in rel.name and old.is_file() and old.read_text() != path.read_text():
            changed.append(str(rel))
    return changed


if __name__ == "__main__":
    sys.exit(main())
