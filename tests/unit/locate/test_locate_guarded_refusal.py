"""locate(): a def raised under an `if` that asks a predicate about its parameter alone (`if not
os.path.exists(path): raise OSError("Starting path not found")`), a refusal of what it was
handed as much as a message naming the argument (issue 22, ranking, class A: the fault made a
value and returned). The caller that computed the path comes first (python-dotenv's
`find_dotenv` and `_walk_to_root`)."""

from heal_ls.locate import locate
from heal_ls.models import Frame

from tests.helpers.locate import failed_run, keys_of, line_of, write_project

PATHS = """\
import os


def walk_to_root(path):
    if not os.path.exists(path):
        raise OSError("Starting path not found")
    return [path]


def find(filename, start):
    path = os.path.dirname(os.path.join(start, "inner", filename))
    return walk_to_root(path)
"""
TEST = """\
from paths import find


def test_find_in_a_zip():
    assert find(".env", "/tmp/app.zip") == []
"""


def ranked(tmp_path, paths: str = PATHS) -> list[str]:
    here, test_path = write_project(tmp_path, "paths", paths, TEST)
    keys = keys_of(here, paths, ("walk_to_root", "find"))
    crash_frames = [
        Frame(
            here, line_of(paths, "return walk_to_root("), "find", {"path": "'/tmp/app.zip/inner'"}
        ),
        Frame(
            here, line_of(paths, "raise OSError"), "walk_to_root", {"path": "'/tmp/app.zip/inner'"}
        ),
    ]
    nodeid = "tests/test_paths.py::test_find_in_a_zip"
    error = ("OSError", "Starting path not found")
    failure, run = failed_run(tmp_path, test_path, nodeid, 5, error, crash_frames, keys)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_the_caller_that_computed_what_a_guard_refused_comes_first(tmp_path):
    assert ranked(tmp_path)[:2] == ["find", "walk_to_root"]


def test_a_guard_weighing_two_parameters_leaves_the_raise_site_first(tmp_path):
    """`if len(path) > limit`: the def weighed one argument against another; which was wrong
    is not said, the raise site stays first."""
    paths = PATHS.replace("def walk_to_root(path):", "def walk_to_root(path, limit=3):")
    paths = paths.replace("if not os.path.exists(path):", "if len(path) > limit:")
    assert ranked(tmp_path, paths)[0] == "walk_to_root"
