"""The local repairer does not overfit: known overfitting shapes come after every other single
edit, trivial leftovers (`x - 0`) are simplified away, and equal costs go to the smaller edit."""

from __future__ import annotations

import itertools

import pytest
from heal_ls.repair import search, shapes
from heal_ls.repair.search import edit_tokens, first_order, mutants
from heal_ls.repair.simplify import simplified
from heal_ls.repair.snippet import Edit, Mutation, Snippet


def shaped(source: str) -> dict[str, set[str]]:
    """Each candidate text (first order) -> the shapes of the mutations that make it."""
    snip = Snippet(source)
    found: dict[str, set[str]] = {}
    for mutation in first_order(snip):
        found.setdefault(snip.apply(mutation.edits), set()).add(mutation.shape)
    return found


@pytest.mark.parametrize(
    ("source", "candidate", "shape"),
    [
        # negating a whole condition, or a clause of one
        ("def f(x):\n    if x:\n        return 1\n", "    if not x:", shapes.NEGATED_CONDITION),
        (
            "def f(a, b):\n    if a < b:\n        return 1\n",
            "    if a >= b:",
            shapes.NEGATED_CONDITION,
        ),
        ("def f(x):\n    if not x:\n        return 1\n", "    if x:", shapes.NEGATED_CONDITION),
        # reversed: `while lo > hi` on a loop that needs `lo < hi` deletes the loop
        (
            "def f(lo, hi):\n    while lo < hi:\n        lo += 1\n",
            "while lo > hi",
            shapes.NEGATED_CONDITION,
        ),
        # negating a returned predicate (the issue's `'push' in parts and ...` -> `not in`)
        (
            "def f(p, force):\n    return 'push' in p and force\n",
            "return 'push' not in p and force",
            shapes.NEGATED_RETURN,
        ),
        ("def f(x, y):\n    return x == y\n", "return x != y", shapes.NEGATED_RETURN),
        # a returned expression replaced by a constant
        ("def f():\n    return True\n", "return False", shapes.RETURNED_CONSTANT),
        ("def f(x):\n    return x + 1\n", "return 1\n", shapes.RETURNED_CONSTANT),
        # deleting a statement or a guard (clause)
        ("def f(xs):\n    xs.sort()\n    return xs\n", "    pass\n", shapes.DELETED),
        ("def f(a, b):\n    return a and b\n", "return a\n", shapes.DELETED),
        # a literal index changed
        ("def f(xs):\n    return xs[1]\n", "xs[0]", shapes.LITERAL_INDEX),
        ("def f(xs):\n    return xs[-1]\n", "xs[-2]", shapes.LITERAL_INDEX),
    ],
)
def test_overfitting_shapes_are_recognised(source, candidate, shape):
    matches = {s for text, found in shaped(source).items() if candidate in text for s in found}
    assert shape in matches


@pytest.mark.parametrize(
    ("source", "candidate"),
    [
        ("def f(a, b):\n    if a < b:\n        return 1\n", "    if a <= b:"),  # not a negation
        ("def f(x, y):\n    return x + y\n", "return x - y"),
        ("def f(xs):\n    return xs[1:]\n", "xs[0:]"),  # a slice bound is no literal index
        ("def f(x, y, z):\n    return (x in y) + z\n", "(x not in y)"),  # not a predicate
        ("def f(n):\n    total = n * 2\n    return total\n", "n * 3"),
    ],
)
def test_ordinary_edits_have_no_shape(source, candidate):
    found = {s for text, s_ in shaped(source).items() if candidate in text for s in s_}
    assert found == {""}


def test_overfitting_shapes_come_after_every_other_single_edit():
    source = "def needs_force(parts):\n    return 'push' in parts and '--force' in parts\n"
    order = first_order(Snippet(source))
    flags = [bool(m.shape) for m in order]
    assert any(flags) and not all(flags)
    assert flags == sorted(flags)  # every unshaped edit first, then the shaped ones
    texts = list(itertools.islice(mutants(source), flags.index(True)))
    assert not any("not in" in text for text in texts)


def test_pairs_with_an_overfitting_shape_come_after_pairs_without():
    source = "def f(a, b, xs):\n    if a < b:\n        return xs[1] + a\n    return b\n"
    singles = first_order(Snippet(source))
    pairs = list(itertools.islice(search.second_order(singles), 200))
    shaped_at = [bool(a.shape or b.shape) for a, b in pairs]
    assert not shaped_at[0] and any(shaped_at)


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        (
            "def mean(p):\n    return sum(p) / len(p) - 0\n",
            "def mean(p):\n    return sum(p) / len(p)\n",
        ),
        ("def f(x):\n    return x + 0\n", "def f(x):\n    return x\n"),
        ("def f(x):\n    return 0 + x\n", "def f(x):\n    return x\n"),
        ("def f(x):\n    return x * 1\n", "def f(x):\n    return x\n"),
        ("def f(x):\n    return 1 * (x + 2)\n", "def f(x):\n    return (x + 2)\n"),
        ("def f(x):\n    return not not x\n", "def f(x):\n    return x\n"),
        ("def f(x):\n    return (x - 0) * 1\n", "def f(x):\n    return (x)\n"),
        ("def f(a, b):\n    return a * (b - 0.0)\n", "def f(a, b):\n    return a * (b)\n"),
    ],
)
def test_trivial_leftovers_are_simplified(candidate, expected):
    original = "def unrelated(q):\n    return q\n"
    assert simplified(candidate, original) == expected


def test_the_users_own_trivial_expressions_stay_as_written():
    original = "def f(x, y):\n    return x * 1, y - 2\n"
    candidate = "def f(x, y):\n    return x * 1, y - 0\n"
    assert simplified(candidate, original) == "def f(x, y):\n    return x * 1, y\n"
    assert simplified("def f(:\n", original) == "def f(:\n"  # does not parse: left alone


def test_the_search_never_yields_a_trivial_leftover():
    source = "def mean(p):\n    return sum(p) / len(p) - 1\n"
    texts = list(itertools.islice(mutants(source), 400))
    assert not any("- 0" in t or "* 1" in t or "not not" in t for t in texts)
    plain = "def mean(p):\n    return sum(p) / len(p)\n"
    assert texts.count(plain) == 1  # `- 1` -> `- 0` became this (and is not tried twice)
    assert texts.index(plain) < 3


def test_equal_costs_go_to_the_smallest_edit_in_tokens(monkeypatch):
    source = "def f(x, y):\n    return x\n"
    at = source.index("x\n")

    def generator(snip):  # the bigger edit first, at the same cost
        yield Mutation("name", (Edit(at, at + 1, "x + y * 2"),), 2, 1.0)
        yield Mutation("name", (Edit(at, at + 1, "y"),), 2, 1.0)
        yield Mutation("name", (Edit(at, at + 1, "x - y"),), 2, 0.5)  # cheaper: still first

    monkeypatch.setattr(search, "GENERATORS", (generator,))
    assert list(mutants(source, second=False)) == [
        source.replace("return x", "return x - y"),
        source.replace("return x", "return y"),
        source.replace("return x", "return x + y * 2"),
    ]


@pytest.mark.parametrize(
    ("old", "new", "tokens"),
    [
        ("1", "0", 2),
        ("x - 1", "x", 2),
        ("a", "not (a)", 5),
        ("a < b", "a <= b", 2),
        ("", "pass", 1),
        ("x ^= y", "x &= y", 2),
    ],
)
def test_edit_size_counts_the_tokens_that_change(old, new, tokens):
    text = f"({old})"
    assert edit_tokens(text, [Edit(1, 1 + len(old), new)]) == tokens
