"""The transformations real fixes of the corpus needed (repair/conditions.py), each on a synthetic
case: the reference fix is generated and ranked early, and nothing is offered where it cannot be
meant."""

from __future__ import annotations

import itertools
import textwrap

import pytest
from heal_ls.repair import conditions, normalised
from heal_ls.repair.local import LocalRepairer
from heal_ls.repair.snippet import Snippet


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def rank_of(buggy: str, fixed: str, limit: int = 2000) -> tuple[int, str] | None:
    """(position, kind) of the reference fix among the candidates, None when not generated."""
    target = normalised(fixed)
    assert target is not None and target != normalised(buggy)
    candidates = LocalRepairer().labelled(buggy, [], 1)
    for index, (candidate, kind) in enumerate(itertools.islice(candidates, limit)):
        if normalised(candidate) == target:
            return index, kind
    return None


CASES = [
    (
        "falsy-test",  # an empty name means no name too
        src("""
        def config_name(env):
            name = env.get("NAME")
            if name is None or name == ":":
                return "default"
            return name
        """),
        src("""
        def config_name(env):
            name = env.get("NAME")
            if not name or name == ":":
                return "default"
            return name
        """),
        10,
    ),
    (
        "guard-statement",  # an empty default is not shown
        src("""
        def help_extra(option, extra):
            default = option.default_text()
            extra.append("default: " + default)
            return extra
        """),
        src("""
        def help_extra(option, extra):
            default = option.default_text()
            if default:
                extra.append("default: " + default)
            return extra
        """),
        60,
    ),
    (
        "f-string",  # the two pieces that hold a field, not the one between them
        src("""
        def complain(field_name, kind):
            msg = (
                'Field "{field_name}" must be an instance, '
                "not a class. "
                'Did you mean "{kind.__name__}()"?'
            )
            raise TypeError(msg)
        """),
        src("""
        def complain(field_name, kind):
            msg = (
                f'Field "{field_name}" must be an instance, '
                "not a class. "
                f'Did you mean "{kind.__name__}()"?'
            )
            raise TypeError(msg)
        """),
        10,
    ),
]


@pytest.mark.parametrize("kind, buggy, fixed, max_rank", CASES, ids=[c[0] for c in CASES])
def test_the_reference_fix_is_made_by_its_transformation_and_ranked_early(
    kind, buggy, fixed, max_rank
):
    found = rank_of(buggy, fixed)
    assert found is not None, "reference fix not generated"
    assert found[1] == kind and found[0] <= max_rank


def made(generator, source: str) -> list[str]:
    snip = Snippet(source)
    return [snip.apply(m.edits) for m in generator(snip)]


def test_a_string_is_made_an_f_string_only_when_a_field_names_a_local():
    assert made(conditions.fstrings, 'def f(x):\n    return "{x}".format(x=1)\n') == []
    assert made(conditions.fstrings, 'def f(x):\n    return "{y} and {{x}}"\n') == []
    assert made(conditions.fstrings, 'def f(x):\n    return b"{x}" + rb"{x}"\n') == []
    docstring = 'def f(x):\n    """Doc {x}."""\n    return f"{x}"\n'
    assert made(conditions.fstrings, docstring) == []


def test_none_tests_become_falsy_tests_and_nothing_else_does():
    assert made(conditions.falsy_tests, "def f(a, b):\n    return a + b is not None\n") == [
        "def f(a, b):\n    return (a + b)\n"
    ]
    assert made(conditions.falsy_tests, "def f(a):\n    return a is True or a == None\n") == []


def test_a_statement_sharing_its_line_is_never_wrapped():
    assert made(conditions.guarded_statements, "def f(out, x):\n    out.append(x); x += 1\n") == []
    method = "    def f(self, out, x):\n        out.append(x)  # keep\n"
    assert made(conditions.guarded_statements, method)[0] == (
        "    def f(self, out, x):\n        if x:\n            out.append(x)  # keep\n"
    )
