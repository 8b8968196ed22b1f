"""locate(): a def on the failing path caught the exception with an except clause for its
class and let it out doing nothing else with it (issue 22, class J: starlette-4f16aedc's
`StaticFiles.get_response` had `except OSError: raise` around the `lookup_path` whose `os.stat`
refused a too-long name, and the fix answers it with a 404 there; docstring-parser-c1bf4bde's
`parse` kept a style's `ParseError` and raised it though another style had parsed). That def
chose not to handle this very class: it comes before the raise below it. A clause that does
more (restores state, adds context) or that keeps the class from a broader clause after it
handled the exception its own way: the raise site stays first."""

from heal_ls.locate import ranker
from heal_ls.models import Frame

from tests.helpers.locate import failing_test, keys_of, line_of, ranked_among_passing, write_project

FILES = """\
import os


def lookup(directory, name):
    path = os.path.join(directory, name)
    return path, os.stat(path)


def respond(directory, name):
    try:
        path, found = lookup(directory, name)
    except PermissionError:
        return 401
    except OSError:
        raise
    return 200
"""
TEST = """\
from files import respond


def test_a_name_too_long_is_not_found(tmp_path):
    assert respond(str(tmp_path), "a" * 1000) == 404
"""
ERROR = ("OSError", "[Errno 36] File name too long: '/tmp/aaaa'")


def ranked(tmp_path, files=FILES, error=ERROR) -> list[str]:
    tmp_path.mkdir(exist_ok=True)
    here, test_path = write_project(tmp_path, "files", files, TEST)
    raised_again = (
        [Frame(here, line_of(files, "raise failed"), "respond")] if "failed" in files else []
    )
    frames = [
        *raised_again,  # `raise failed` adds the def's frame at that line, above the first
        Frame(here, line_of(files, "= lookup(directory, "), "respond"),
        Frame(here, line_of(files, "os.stat(path)"), "lookup"),
    ]
    covered = keys_of(here, files, ("lookup", "respond"))
    nodeid = "tests/test_files.py::test_a_name_too_long_is_not_found"
    failure = failing_test(test_path, nodeid, 5, error, frames, covered)
    return ranked_among_passing(tmp_path, failure, covered)


def test_the_def_whose_clause_for_the_class_only_re_raised_it_comes_first(tmp_path):
    assert ranked(tmp_path) == ["respond", "lookup"]


def test_a_clause_for_a_base_of_the_class_counts_too(tmp_path):
    """`except OSError` caught the FileNotFoundError (a subclass) as well."""
    error = ("FileNotFoundError", "[Errno 2] No such file or directory: '/tmp/a'")
    assert ranked(tmp_path, error=error) == ["respond", "lookup"]


def test_an_exception_kept_and_raised_later_counts_too(tmp_path):
    files = FILES.replace(
        "    try:\n        path, found = lookup(directory, name)\n"
        "    except PermissionError:\n        return 401\n    except OSError:\n        raise\n",
        "    failed = None\n    for each in (name, name.lower()):\n        try:\n"
        "            path, found = lookup(directory, each)\n        except OSError as error:\n"
        "            failed = error\n    if failed is not None:\n        raise failed\n",
    )
    assert ranked(tmp_path, files) == ["respond", "lookup"]


def test_a_re_raise_that_keeps_the_class_from_a_broader_clause_is_not_it(tmp_path):
    """`except FileNotFoundError: raise` before `except OSError: return 500`: the re-raise
    is how the def handles the class (it keeps it from the clause below)."""
    files = FILES.replace(
        "    except PermissionError:\n        return 401\n    except OSError:\n        raise\n",
        "    except FileNotFoundError:\n        raise\n    except OSError:\n        return 500\n",
    )
    error = ("FileNotFoundError", "[Errno 2] No such file or directory: '/tmp/a'")
    assert ranked(tmp_path / "shield", files, error) == ["lookup", "respond"]


def test_a_clause_that_does_more_before_re_raising_is_not_it(tmp_path):
    files = FILES.replace(
        "    except OSError:\n        raise\n",
        "    except OSError:\n        name = None\n        raise\n",
    )
    assert ranked(tmp_path, files) == ["lookup", "respond"]


def test_a_clause_for_every_exception_or_for_another_class_is_not_it(tmp_path):
    broad = FILES.replace("except OSError:\n        raise", "except Exception:\n        raise")
    assert ranked(tmp_path / "broad", broad) == ["lookup", "respond"]
    other = FILES.replace("except OSError:\n        raise", "except ValueError:\n        raise")
    assert ranked(tmp_path / "other", other) == ["lookup", "respond"]


def test_the_class_table_is_built_only_when_a_try_holds_a_frame_of_the_path(tmp_path, monkeypatch):
    """The lineage of the raised class reads the classes of every module the failing test ran
    (operators.ClassTable: ~50 ms of `heal-ls check` on networkx, whose crash no try held):
    a path with no try around its lines does not need it."""
    built: list[object] = []

    class CountedTable(ranker.ClassTable):
        def __init__(self, trees):
            built.append(self)
            super().__init__(trees)

    monkeypatch.setattr(ranker, "ClassTable", CountedTable)
    bare = FILES.replace(
        "    try:\n        path, found = lookup(directory, name)\n"
        "    except PermissionError:\n        return 401\n    except OSError:\n        raise\n",
        "    path, found = lookup(directory, name)\n",
    )
    assert ranked(tmp_path / "bare", bare) == ["lookup", "respond"]
    assert built == []
    assert ranked(tmp_path / "tried") == ["respond", "lookup"]
    assert len(built) == 1
