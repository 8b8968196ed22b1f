"""locate() after a crash whose raise site read its object's private state (`self._index`):
a def of another class that the failing test ran and that changed that state from outside
(`lines._index -= n`) set what the raise site tripped over; it comes right after the raise
site, before the callers that only led there, and before the raise site when that raised on
purpose (a `raise` statement refusing the state it kept) (issue 22, ranking: mistletoe's
`Footnote.backtrack` rewinding a `FileWrapper` too far, whose `__next__` then raised
StopIteration)."""

import pytest
from heal_ls.locate import locate
from heal_ls.models import Frame

from tests.helpers.locate import failed_run, line_of, write_project

LINES = """\
class Lines:
    def __init__(self, lines):
        self.lines = lines
        self._index = -1

    def __next__(self):
        if self._index + 1 < len(self.lines):
            self._index += 1
            return self.lines[self._index]
        raise StopIteration


def backtrack(lines, string):
    lines._index -= string.count("\\n") + 1


def read_block(lines):
    first = next(lines)
    backtrack(lines, first)
    return [first, next(lines)]
"""
TEST = """\
from lines import Lines, read_block


def test_read_block():
    assert read_block(Lines(["a\\n", "b\\n"])) == ["a\\n", "a\\n"]
"""


def ranked(tmp_path, lines: str = LINES, raised: str = "raise StopIteration") -> list[str]:
    here, test_path = write_project(tmp_path, "lines", lines, TEST)
    names = ("__init__", "__next__", "backtrack", "read_block")
    keys = [f"{here}:{line_of(lines, f'def {name}(')}" for name in names]
    frames = [
        Frame(here, line_of(lines, "return [first, next(lines)]"), "read_block"),
        Frame(here, line_of(lines, raised), "__next__"),
    ]
    nodeid = "tests/test_lines.py::test_read_block"
    failure, run = failed_run(tmp_path, test_path, nodeid, 5, ("StopIteration", ""), frames, keys)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_the_def_that_changed_private_state_from_outside_comes_before_a_deliberate_raise(
    tmp_path,
):
    assert ranked(tmp_path)[:3] == ["backtrack", "Lines.__next__", "read_block"]


CRASHING = LINES.replace(
    """        if self._index + 1 < len(self.lines):
            self._index += 1
            return self.lines[self._index]
        raise StopIteration
""",
    """        self._index += 1
        return self.lines[self._index]
""",
)


def test_the_def_that_changed_private_state_comes_right_after_a_crash(tmp_path):
    """The raise site crashed on its state (`self.lines[self._index]`): the line itself may
    be what is wrong, so it keeps the first place."""
    assert ranked(tmp_path, CRASHING, "return self.lines[self._index]")[:3] == [
        "Lines.__next__",
        "backtrack",
        "read_block",
    ]


@pytest.mark.parametrize("attribute", ["index", "__index"])
def test_public_or_mangled_state_lifts_no_writer(tmp_path, attribute):
    """A public attribute is the object's interface, anyone may set it; a mangled one cannot
    be reached from outside by that name."""
    lines = LINES.replace("_index", attribute)
    assert ranked(tmp_path, lines)[:2] == ["Lines.__next__", "read_block"]


WRITERS = """\
def rewind(lines, string):
    \"\"\"Docstring.\"\"\"
    lines._index -= 1
    self._own = 0
    lines.public = 1
    for other._cursor in range(2):
        pass
    return [0 for more._seen in string]


def odd(lines, fill=[0 for held._kept in (1,)]):
    return lines
"""


def test_the_private_state_a_def_changes_is_read_ahead_with_its_calls(tmp_path):
    """cached.private_writes: the private attributes each def stores on another object, in
    its body or (a comprehension in a default) its other parts; read_ahead (the prefetch
    worker's) reads them with the def's calls in one walk, and finds the same."""
    from heal_ls.locate import cached
    from heal_ls.locate.index import index_file

    (tmp_path / "writers.py").write_text(WRITERS)
    alone = index_file(str(tmp_path / "writers.py"))
    assert alone is not None
    rewind, odd = alone.functions
    found = {node.def_line: cached.private_writes(alone, node) for node in (rewind, odd)}
    assert found == {rewind.def_line: {"_index", "_cursor", "_seen"}, odd.def_line: {"_kept"}}
    assert alone.calls == {}  # asked alone, the calls are not read
    calls = {node.def_line: cached.called_in(alone, node) for node in (rewind, odd)}
    (tmp_path / "writers.py").write_text(WRITERS + "\n")  # another text: a fresh index
    ahead = index_file(str(tmp_path / "writers.py"))
    assert ahead is not None and ahead is not alone
    for node in ahead.functions:
        cached.read_ahead(ahead, node)
    assert (ahead.private_writes, ahead.calls) == (found, calls)
