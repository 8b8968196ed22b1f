"""The whole answer -> safety -> splice path on every benchmark bug in examples/bench.

Each case's reference fix, wrapped in prose and a code fence as a model would send it, must pass
the safety rails and splice into the exact target node: the spliced def equals the reference,
everything outside it is unchanged, line endings included (vowels_crlf is a CRLF file).
"""

import ast
import re
from pathlib import Path

import pytest
from heal_ls.heal.answer import extract_function
from heal_ls.heal.safety import check_candidate
from heal_ls.locate import index_source, suspect_for
from heal_ls.pysource.source import read_source
from heal_ls.pysource.splice import function_source, splice

BENCH = Path(__file__).resolve().parents[3] / "examples" / "bench"
CASES = sorted(p.parent.name for p in BENCH.glob("*/reference.py"))
TARGET = re.compile(r"target: (\S+?)::(\S+?)\"")


def bug(case: str):
    reference = (BENCH / case / "reference.py").read_text()
    module, qualname = TARGET.search(reference).groups()
    return reference, BENCH / case / module, qualname


def as_code(source: str) -> str:
    """The def's AST (decorators included), whatever column the source starts at."""
    source = source.lstrip("\r\n")
    wrapped = source if not source[:1].isspace() else "if True:\n" + source
    tree = ast.parse(wrapped)
    return ast.dump(
        next(n for n in ast.walk(tree) if isinstance(n, ast.AsyncFunctionDef | ast.FunctionDef))
    )


@pytest.mark.parametrize("case", CASES)
def test_reference_fix_goes_through_answer_safety_and_splice(case):
    reference, path, qualname = bug(case)
    text = read_source(path)
    node = index_source(text).find(qualname)
    suspect = suspect_for(str(path), node, "bench")
    parts = qualname.split(".")
    owner = parts[-2] if len(parts) > 1 and parts[-2] != "<locals>" else None
    original = function_source(text, suspect)
    # the target's def (a multi-node reference also holds other defs and imports)
    fix_def = next(n for n in ast.parse(reference).body if getattr(n, "name", "") == node.name)
    answer = f"The bug is in `{node.name}`. Fixed:\n\n```python\n{ast.get_source_segment(reference, fix_def)}\n```\n"

    new = extract_function(answer, node.name, owner, original=original)
    check_candidate(original, new, str(path))
    after = splice(text, suspect, new)

    start = _offset(text, suspect.start_line)
    assert after[:start] == text[:start]
    tail = text[text.index(original) + len(original) :]
    assert after.endswith(tail)
    spliced = function_source(
        after, suspect_for(str(path), index_source(after).find(qualname), "x")
    )
    first = min([fix_def.lineno] + [d.lineno for d in fix_def.decorator_list])
    fixed = "".join(reference.splitlines(keepends=True)[first - 1 : fix_def.end_lineno])
    assert as_code(spliced) == as_code(fixed)
    if "\r\n" in text:
        assert "\n" not in after.replace("\r\n", "")


def test_there_are_bench_cases():
    assert len(CASES) >= 10


def _offset(text: str, line: int) -> int:
    return sum(len(row) for row in text.splitlines(keepends=True)[: line - 1])
