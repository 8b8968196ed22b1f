"""locate() after a crash inside a library's code (issue 22, ranking): the library refused an
argument the workspace's last frame handed it. When a function of ours computed that argument,
the line only passed it on: that function comes first. The value trail follows the arguments
handed, not the object whose method was called."""

from heal_ls.locate import locate
from heal_ls.models import Frame

from tests.helpers.locate import failed_run, keys_of, line_of, write_project

PATTERNS = """\
import re


def to_regex(pattern):
    return pattern.replace("*", ".*")


class Pattern:
    def __init__(self, pattern):
        raw = to_regex(pattern)
        self.regex = re.compile(raw)
"""
TEST = """\
from patterns import Pattern


def test_a_bad_range_is_a_null_pattern():
    assert Pattern("[z-a]").regex is None
"""
RE = "/usr/lib/python3.11/re/"


def ranked(tmp_path, patterns=PATTERNS):
    here, test_path = write_project(tmp_path, "patterns", patterns, TEST)
    keys = keys_of(here, patterns, ("to_regex", "__init__"))
    crash_frames = [
        Frame(here, line_of(patterns, "re.compile("), "__init__"),
        Frame(RE + "__init__.py", 227, "compile"),
        Frame(RE + "_parser.py", 621, "_parse"),
    ]
    nodeid = "tests/test_patterns.py::test_a_bad_range_is_a_null_pattern"
    error = ("error", "bad character range z-a at position 1")
    failure, run = failed_run(tmp_path, test_path, nodeid, 5, error, crash_frames, keys)
    return locate(failure, str(tmp_path), run).suspects


def test_the_function_that_made_what_a_library_refused_comes_before_the_line_that_handed_it(
    tmp_path,
):
    suspects = ranked(tmp_path)
    assert [s.qualname for s in suspects] == ["to_regex", "Pattern.__init__"]
    assert suspects[0].reason.startswith("computes a value used where it was raised")


def test_a_value_the_line_was_handed_leaves_the_raise_site_first(tmp_path):
    """`re.compile(pattern)`: no function of ours computed it (it came from the test)."""
    patterns = PATTERNS.replace("re.compile(raw)", "re.compile(pattern)")
    assert ranked(tmp_path, patterns)[0].qualname == "Pattern.__init__"
