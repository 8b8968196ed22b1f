"""locate(): PEP 479 turned a StopIteration that left a generator of ours into the failure's
`RuntimeError: generator raised StopIteration` (issue 22, class Q: petl-96cdc782's
`iterrowslice` did `yield tuple(next(it))` on an empty table). The reported frames end where
the generator was resumed (here the test's own `list(...)`); the record's chain keeps the
StopIteration's frames, and the generator's line is the raise site. Only Python's conversion
counts: a StopIteration the code caught on purpose, or one raised in the test's own code, is
not it (the words of every version: test_python_messages.py)."""

from heal_ls.models import Chained, Frame

from tests.helpers.locate import failing_test, keys_of, line_of, ranked_among_passing, write_project

ROWS = """\
def rows(table):
    it = iter(table)
    yield tuple(next(it))
    for row in it:
        yield tuple(row)


def head(table, n):
    for i, row in enumerate(table):
        if i == n:
            return
        yield row
"""
TEST = """\
from rows import head, rows


def test_head_of_an_empty_table():
    assert list(head(rows([]), 1)) == []
"""
ERROR = ("RuntimeError", "generator raised StopIteration")


def failure_of(tmp_path, chain):
    tmp_path.mkdir(exist_ok=True)
    here, test_path = write_project(tmp_path, "rows", ROWS, TEST)
    covered = keys_of(here, ROWS, ("rows", "head"))
    failure = failing_test(test_path, "tests/test_rows.py::test_head", 5, ERROR, [], covered)
    failure.chain = chain(here, test_path)
    return failure, covered


def test_the_generator_that_let_a_stop_out_is_first(tmp_path):
    """The passing tests ran `rows` too: without the chain `head` would be first."""
    at = line_of(ROWS, "yield tuple(next(it))")
    failure, covered = failure_of(
        tmp_path, lambda here, _: [Chained("StopIteration", "", [Frame(here, at, "rows")], True)]
    )
    ranked = ranked_among_passing(tmp_path, failure, covered[:1])
    assert ranked[0] == "rows"


def test_a_stop_raised_while_handling_or_in_the_tests_own_code_is_not_it(tmp_path):
    """A chain link that is the context (`raise RuntimeError(...)` written in an `except
    StopIteration:`), and a StopIteration raised in the test file's own generator: the rule
    names nothing, the ranking is the one without a chain."""
    at = line_of(ROWS, "yield tuple(next(it))")
    plain, covered = failure_of(tmp_path / "plain", lambda here, _: [])
    expected = ranked_among_passing(tmp_path / "plain", plain, covered[:1])
    assert expected[0] != "rows"
    context, covered = failure_of(
        tmp_path / "context",
        lambda here, _: [Chained("StopIteration", "", [Frame(here, at, "rows")], False)],
    )
    assert ranked_among_passing(tmp_path / "context", context, covered[:1]) == expected
    own, covered = failure_of(
        tmp_path / "own",
        lambda here, test: [Chained("StopIteration", "", [Frame(test, 5, "gen")], True)],
    )
    assert ranked_among_passing(tmp_path / "own", own, covered[:1]) == expected
