"""locate.blocks.block_of cuts a def into the blocks the agent's instrumentation records."""

import ast
import sys
import types

from heal_ls.locate.blocks import block_of
from heal_ls.testing.prestart import PLUGIN_DIR

sys.path.insert(0, PLUGIN_DIR)
import heal_hits  # noqa: E402

SOURCE = """\
def pick(n, items):
    total = 0
    if n > 2:
        total += 1
    elif n < 0:
        total -= 1
    else:
        total = n
    for item in items:
        if item:
            continue
        total += item
    else:
        total *= 2
    try:
        total = 10 // total
    except ZeroDivisionError:
        total = 0
    else:
        total += 1
    finally:
        n = 0
    with open(__file__) as handle:
        handle.read(
            1
        )
    while total > 5:
        total -= 1

    def inner(x):
        if x:
            return 1
        return 2

    match total:
        case 0:
            total = inner(0)
        case _:
            pass
    return total
"""


def recorded_blocks(code: types.CodeType) -> set[int]:
    """The block lines the instrumented code can report (its `path:line:b` constants)."""
    found = set()
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found |= recorded_blocks(const)
        elif isinstance(const, str) and const.endswith(heal_hits.BLOCK_MARK):
            found.add(int(const[: -len(heal_hits.BLOCK_MARK)].rpartition(":")[2]))
    return found


def test_every_statement_is_in_a_block_the_agent_records_or_in_the_entry(tmp_path):
    path = str(tmp_path / "m.py")
    recorded = recorded_blocks(heal_hits.compile_recording(SOURCE, path, blocks=True))
    tree = ast.parse(SOURCE)
    pick = tree.body[0]
    assert isinstance(pick, ast.FunctionDef)
    inner = next(n for n in ast.walk(pick) if isinstance(n, ast.FunctionDef) and n.name == "inner")
    own = {
        line
        for node in ast.walk(pick)
        if isinstance(node, ast.stmt) and node is not pick
        if not (inner.lineno <= node.lineno <= (inner.end_lineno or 0)) or node is inner
        for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)
    }
    found = {block_of(pick, line) for line in own}
    inner_blocks = {block_of(inner, n.lineno) for n in ast.walk(inner) if isinstance(n, ast.stmt)}
    assert (found | inner_blocks) - {None} == recorded  # the same cut, nothing more or less
    assert all(block_of(pick, line) == line for line in recorded if line not in inner_blocks)
    lines = SOURCE.splitlines()
    at: dict[str, int] = {}
    for n, text in enumerate(lines, 1):
        at.setdefault(text.strip(), n)  # the first of equal lines
    assert block_of(pick, at["total = 0"]) is None  # the entry
    assert block_of(pick, at["total += 1"]) == at["total += 1"]  # the if's body
    assert block_of(pick, at["1"]) == at["with open(__file__) as handle:"]  # after the try
    assert block_of(pick, at["n = 0"]) == at["try:"]  # a finally runs with its try
    assert block_of(pick, at["total += item"]) == at["total += item"]  # after the inner if
