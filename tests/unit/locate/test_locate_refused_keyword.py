"""locate() when a signature refused a keyword the test passes (class W, issue 22): the def
meant to take it is the outermost that took it into its `**kwargs` from the test's call, when
the refusing function is not ours (C's `'k' is an invalid keyword argument`); the def of ours
whose signature lacks it, when the test swallowed the TypeError and failed later."""

from __future__ import annotations

from heal_ls.locate import locate
from heal_ls.models import Frame

from tests.helpers.locate import (
    failed_run,
    failing_test,
    line_of,
    ranked_among_passing,
    write_project,
)
from tests.helpers.projects import INTERPRETER, SWALLOWED

TABLES = """\
import csv


class Reader:
    def __init__(self, f, header=True, **kwargs):
        self.rows = csv.reader(f, **kwargs)


def reader(*args, **kwargs):
    return Reader(*args, **kwargs)


def from_csv(path, header=True, **kwargs):
    with open(path) as f:
        return list(reader(f, header=header, **kwargs).rows)


def _emit(key, value, pretty=False):
    return f"<{key}>{value}</{key}>"


def unparse(item, **kwargs):
    return "".join(_emit(k, v, **kwargs) for k, v in item.items())
"""
LIMITED = """\
from tables import from_csv


def test_row_limit():
    assert len(from_csv("rows.csv", row_limit=2)) == 2
"""
UNLIMITED = """\
from tables import from_csv


def test_rows():
    assert len(from_csv("rows.csv", **{"row_limit": 2})) == 2
"""
EXPANDED = """\
from tables import unparse


def test_expand_iter():
    assert unparse({"a": [1]}, expand_iter="item") == "<a><item>1</item></a>"
"""


def ranked_refusal(tmp_path, test: str, message: str) -> list[str]:
    here, test_path = write_project(tmp_path, "tables", TABLES, test)
    defs = ("def from_csv", "def reader", "def __init__")
    covered = [f"{here}:{line_of(TABLES, text)}" for text in defs]
    held = {"kwargs": "{'row_limit': 2}", "f": "<_io.TextIOWrapper name='rows.csv'>"}
    frames = [
        Frame(here, line_of(TABLES, "return list(reader"), "from_csv", held),
        Frame(
            here,
            line_of(TABLES, "return Reader("),
            "reader",
            {"kwargs": "{'header': True, 'row_limit': 2}"},
        ),
        Frame(here, line_of(TABLES, "csv.reader(f"), "__init__", held),
    ]
    line = line_of(test, "from_csv(")
    nodeid = "tests/test_tables.py::test_row_limit"
    failure, run = failed_run(
        tmp_path, test_path, nodeid, line, ("TypeError", message), frames, covered
    )
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_the_def_that_took_the_keyword_from_the_test_comes_before_the_raise(tmp_path):
    message = "'row_limit' is an invalid keyword argument for this function"
    assert ranked_refusal(tmp_path, LIMITED, message)[:2] == ["from_csv", "Reader.__init__"]


def test_python_3_13s_words_read_the_same(tmp_path):
    message = "this function got an unexpected keyword argument 'row_limit'"
    assert ranked_refusal(tmp_path, LIMITED, message)[0] == "from_csv"


def test_a_keyword_the_tests_line_does_not_name_leaves_the_raise_first(tmp_path):
    message = "'row_limit' is an invalid keyword argument for this function"
    assert ranked_refusal(tmp_path, UNLIMITED, message)[0] == "Reader.__init__"


def test_a_refusing_def_of_ours_stays_first(tmp_path):
    """`_emit() got an unexpected keyword argument`: `_emit` has no `**`, its signature is
    what the fix changes; `unparse`, which took the keyword into `**kwargs`, only handed it on."""
    here, test_path = write_project(tmp_path, "tables", TABLES, EXPANDED)
    covered = [f"{here}:{line_of(TABLES, 'def unparse')}"]
    call = line_of(TABLES, "_emit(k, v, **kwargs)")
    frames = [Frame(here, call, "unparse", {"kwargs": "{'expand_iter': 'item'}"})]
    error = ("TypeError", "_emit() got an unexpected keyword argument 'expand_iter'")
    nodeid = "tests/test_tables.py::test_expand_iter"
    line = line_of(EXPANDED, "unparse(")
    failure, run = failed_run(tmp_path, test_path, nodeid, line, error, frames, covered)
    assert [s.qualname for s in locate(failure, str(tmp_path), run).suspects][:2] == [
        "_emit",
        "unparse",
    ]


def ranked_swallowed(tmp_path, ran_eval: bool) -> list[str]:
    here, test_path = write_project(tmp_path, "interpreter", INTERPRETER, SWALLOWED)
    defs = ["def __init__", "def __call__", "def eval"]
    every = [f"{here}:{line_of(INTERPRETER, text)}" for text in defs]
    covered = every if ran_eval else every[:2]
    nodeid = "tests/test_interpreter.py::test_syntax_error_raises"
    line = line_of(SWALLOWED, "assert interp.error")
    failure = failing_test(test_path, nodeid, line, ("AssertionError", "assert []"), [], covered)
    return ranked_among_passing(tmp_path, failure, every)


def test_the_def_that_refused_a_keyword_the_test_swallowed_comes_first(tmp_path):
    assert ranked_swallowed(tmp_path, ran_eval=False)[0] == "Interpreter.eval"


def test_a_def_the_failing_test_entered_refused_nothing(tmp_path):
    found = ranked_swallowed(tmp_path, ran_eval=True)
    assert found[0] != "Interpreter.eval"
