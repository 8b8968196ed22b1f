"""A keyword the test passes that a signature refused (class W, issue 22), on a small project
run for real: the recorded `**kwargs` locals and the functions that ran are what the ranking
reads.

`from_csv(path, row_limit=2)` hands `row_limit` down in `**kwargs` to `csv.reader`, which
refuses it in C's words; the def meant to take it is `from_csv`, not the raise site below it.
`interp(expr, raise_errors=True)` hands it to `Interpreter.eval`, which has no such
parameter; the test's bare `except` swallows the TypeError and a later check fails.
"""

import asyncio
from pathlib import Path

import pytest
from heal_ls.diagnose import diagnose
from heal_ls.testing.options import RunOptions
from helpers.projects import INTERPRETER, SWALLOWED, suspects_of, write_files

FILES = {
    "pytest.ini": "[pytest]\npythonpath = src\ntestpaths = tests\n",
    "src/kw/__init__.py": "",
    "src/kw/tables.py": """
        import csv
        import io


        class Reader:
            def __init__(self, f, header=True, **kwargs):
                self.header = header
                self.rows = csv.reader(f, **kwargs)


        def reader(*args, **kwargs):
            return Reader(*args, **kwargs)


        def from_csv(text, header=True, **kwargs):
            return list(reader(io.StringIO(text), header=header, **kwargs).rows)
    """,
    "src/interpreter.py": INTERPRETER,
    "tests/test_interpreter.py": SWALLOWED,
    "tests/test_kw.py": """
        from kw.tables import from_csv


        def test_rows():
            assert from_csv("a,b\\n1,2\\n") == [["a", "b"], ["1", "2"]]


        def test_row_limit():
            assert len(from_csv("a\\n1\\n2\\n", row_limit=2)) == 2
    """,
}


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    project: Path = write_files(tmp_path_factory.mktemp("kw"), FILES)
    return asyncio.run(diagnose(project, RunOptions(test_timeout=60)))


def first(checked, name: str):
    return suspects_of(checked, name)[0]


def test_the_def_that_took_the_keyword_into_its_kwargs_comes_first(checked):
    found = first(checked, "::test_row_limit")
    assert found.qualname == "from_csv", found
    assert found.reason.startswith("took the keyword 'row_limit' the test passes")


def test_the_def_that_refused_a_swallowed_keyword_comes_first(checked):
    found = first(checked, "::test_syntax_error_raises")
    assert found.qualname == "Interpreter.eval", found
    assert "handed it the keyword 'raise_errors'" in found.reason
