"""LocalRepairer's contract with the heal loop: module line numbers in, whole defs out, lazily."""

from __future__ import annotations

import itertools
import types

from heal_ls.repair import normalised
from heal_ls.repair.local import LocalRepairer

LONG = """def pick(xs, i, j):
    a = xs[i] + 1
    b = xs[j] + 2
    c = a * 3
    d = b * 4
    e = c - d
    f = e + 5
    return f % 7
"""


def rank(candidates, fixed: str) -> int:
    target = normalised(fixed)
    return next(n for n, c in enumerate(candidates) if normalised(c) == target)


def test_identity_and_laziness():
    repairer = LocalRepairer()
    assert (repairer.name, repairer.model) == ("local", "local")
    stream = repairer.candidates(LONG, [], 1)
    assert isinstance(stream, types.GeneratorType)
    first = list(itertools.islice(stream, 5))
    assert len(first) == 5 and all(c != LONG for c in first)


def test_focus_lines_are_module_lines_and_pull_nearby_edits_forward():
    fixed = LONG.replace("f % 7", "f % 8")
    unfocused = rank(LocalRepairer().candidates(LONG, [], 40), fixed)
    focused = rank(LocalRepairer().candidates(LONG, [47], 40), fixed)  # line 8 of the def
    assert focused <= 3 and focused < unfocused


def test_a_focus_on_the_def_line_is_no_focus():
    fixed = LONG.replace("f % 7", "f % 8")
    unfocused = list(itertools.islice(LocalRepairer().candidates(LONG, [], 40), 200))
    on_def = list(itertools.islice(LocalRepairer().candidates(LONG, [40], 40), 200))
    assert unfocused == on_def
    assert rank(on_def, fixed) == rank(unfocused, fixed)


def test_async_and_nested_defs_are_mutated_in_place():
    source = (
        "    async def fetch(self, n):\n"
        "        def helper(k):\n"
        "            return k - 1\n"
        "        return helper(n)\n"
    )
    candidates = list(LocalRepairer(second_order=False).candidates(source, [3], 20))
    assert source.replace("k - 1", "k + 1") in candidates
    assert all(c.startswith("    async def fetch(self, n):\n") for c in candidates)
