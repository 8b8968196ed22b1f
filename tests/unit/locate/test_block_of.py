"""locate.blocks.block_of cuts a def into the blocks the agent's instrumentation records."""

import ast
import sys
import types

from heal_ls.locate.blocks import block_of, condition_unfinished
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


def test_a_condition_none_of_whose_next_blocks_ran_was_never_finished():
    """`if n > 2:` leads to its body, its `elif` or the `for` after it: with none of them
    run, the run stopped before the test was done; with one, it went past. The same for
    `while` (its body or the def after it); `if x:` in `inner` (a nested scope) is not
    `pick`'s."""
    pick = ast.parse(SOURCE).body[0]
    assert isinstance(pick, ast.FunctionDef)
    at = {text.strip(): n for n, text in reversed(list(enumerate(SOURCE.splitlines(), 1)))}
    first, loop = at["if n > 2:"], at["for item in items:"]
    assert condition_unfinished(pick, first, set())
    assert not condition_unfinished(pick, first, {loop})
    assert not condition_unfinished(pick, first, {at["total += 1"]})
    guard = at["while total > 5:"]
    assert condition_unfinished(pick, guard, {loop})
    assert not condition_unfinished(pick, guard, {guard + 1})  # its body
    assert not condition_unfinished(pick, at["total = 0"], set())  # no condition there
    assert not condition_unfinished(pick, at["if x:"], set())


def test_a_condition_last_in_its_list_without_an_else_tells_nothing():
    """Nothing recorded follows `if flag:` when its body does not run: no block says whether
    the run got past it."""
    tail = ast.parse("def tail(flag):\n    go()\n    if flag:\n        stop()\n").body[0]
    assert isinstance(tail, ast.FunctionDef)
    assert not condition_unfinished(tail, 3, set())
