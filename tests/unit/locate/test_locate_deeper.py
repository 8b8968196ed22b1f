"""locate(): rules for real bugs whose fix is not where the failure shows (issue 22, ranking):
a missing refusal of an input the test expects refused; a local variable on the failing line
mistaken for a function of the same name; the callee that made the value a line crashed on."""

from textwrap import dedent

import pytest
from heal_ls.locate import locate
from heal_ls.models import Failure, Frame

UNITS = """\
def pick(names, index):
    return names[index]


def describe(parts):
    return pick(parts, -1) + " ago"


def humanize(delta, granularity):
    if granularity == "nonsense":
        raise ValueError("unknown granularity")
    return describe([f"{delta} {g}" for g in granularity])
"""


@pytest.fixture
def ws(tmp_path):
    (tmp_path / "units.py").write_text(UNITS)
    (tmp_path / "tests").mkdir()
    return tmp_path


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def crash(ws, test: str, exc_type: str) -> Failure:
    """humanize(3, []) raised `exc_type` in pick(), called from the last line of `test`."""
    text = dedent(test)
    (ws / "tests" / "test_units.py").write_text(text)
    here = str(ws / "units.py")
    return Failure(
        id="tests/test_units.py::test_empty",
        test="tests/test_units.py::test_empty",
        exc_type=exc_type,
        message="list index out of range",
        frames=[
            Frame(str(ws / "tests" / "test_units.py"), len(text.splitlines()), "test_empty"),
            Frame(here, line_of(UNITS, "return describe("), "humanize"),
            Frame(here, line_of(UNITS, 'return pick(parts, -1) + " ago"'), "describe"),
            Frame(here, line_of(UNITS, "return names[index]"), "pick"),
        ],
    )


PYTEST_RAISES = """\
    import pytest
    from units import humanize


    def test_empty():
        with pytest.raises(ValueError):
            humanize(3, [])
"""

ASSERT_RAISES = """\
    import unittest
    from units import humanize


    class TestUnits(unittest.TestCase):
        def test_empty(self):
            with self.assertRaises((TypeError, ValueError)):
                humanize(3, [])
"""


@pytest.mark.parametrize("test", [PYTEST_RAISES, ASSERT_RAISES])
def test_a_crash_where_the_test_expects_a_refusal_blames_the_refusing_caller(ws, test):
    located = locate(crash(ws, test, "IndexError"), str(ws))
    top = located.suspects[0]
    assert top.qualname == "humanize"
    assert "raises" in top.reason and "ValueError" in top.reason and "IndexError" in top.reason
    assert [s.qualname for s in located.suspects[1:3]] == ["pick", "describe"]


def test_the_expected_exception_itself_or_no_expectation_keeps_the_raise_site_first(ws):
    plain = """\
        from units import humanize


        def test_empty():
            humanize(3, [])
    """
    for test, exc_type in ((plain, "IndexError"), (PYTEST_RAISES, "ValueError")):
        located = locate(crash(ws, test, exc_type), str(ws))
        assert located.suspects[0].qualname == "pick"
        assert located.suspects[0].reason == "raised here"


def test_no_caller_raising_the_expected_exception_keeps_the_raise_site_first(ws):
    test = PYTEST_RAISES.replace("ValueError", "KeyError")
    located = locate(crash(ws, test, "IndexError"), str(ws))
    assert [s.qualname for s in located.suspects] == ["pick", "describe", "humanize"]


SPEC = """\
class Spec:
    def __init__(self, text):
        self.text = text

    @property
    def version(self):
        return self.text.lstrip("=")

    def __contains__(self, item):
        return item == self.version


def square(x):
    return x * x
"""


@pytest.mark.parametrize(
    ("check", "expected"),
    [
        ("assert version in spec", "Spec.__contains__"),  # a parameter named like a property
        ("assert spec.version == version", "Spec.version"),  # the property itself is read
        ("assert list(map(square, [version])) == [4]", "square"),  # handed to map, runs
    ],
)
def test_a_local_variable_read_on_the_failing_line_runs_no_function(tmp_path, check, expected):
    (tmp_path / "spec.py").write_text(SPEC)
    (tmp_path / "tests").mkdir()
    text = dedent(f"""\
        import pytest
        from spec import Spec, square


        @pytest.mark.parametrize("version", ["2"])
        def test_in(version):
            spec = Spec("==1")
            {check}
    """)
    (tmp_path / "tests" / "test_spec.py").write_text(text)
    here = str(tmp_path / "spec.py")
    covered = [f"{here}:{line_of(SPEC, needle)}" for needle in ("def __init__", "@property")]
    covered += [f"{here}:{line_of(SPEC, 'def __contains__')}", f"{here}:{line_of(SPEC, 'def sq')}"]
    failure = Failure(
        id="tests/test_spec.py::test_in[2]",
        test="tests/test_spec.py::test_in[2]",
        exc_type="AssertionError",
        message="assert False",
        frames=[Frame(str(tmp_path / "tests" / "test_spec.py"), len(text.splitlines()), "test_in")],
        covered=covered,
    )
    located = locate(failure, str(tmp_path))
    assert located.suspects[0].qualname == expected
    if expected == "Spec.__contains__":
        assert "Spec.version" not in [s.qualname for s in located.suspects[:2]]


TAGS = """\
def normalize(text):
    return text.replace(".", "_")


def platforms(raw):
    linux = normalize(raw)
    _, arch = linux.split("_", 1)
    return [arch]


def tags(raw):
    return [f"py3-{p}" for p in platforms(raw)]
"""


def test_the_callee_that_made_the_value_a_line_crashed_on_outranks_the_callers(tmp_path):
    (tmp_path / "tags.py").write_text(TAGS)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_tags.py").write_text(
        'from tags import tags\n\n\ndef test_space():\n    assert tags("isilon onefs")\n'
    )
    here = str(tmp_path / "tags.py")
    failure = Failure(
        id="tests/test_tags.py::test_space",
        test="tests/test_tags.py::test_space",
        exc_type="ValueError",
        message="not enough values to unpack (expected 2, got 1)",
        frames=[
            Frame(str(tmp_path / "tests" / "test_tags.py"), 5, "test_space"),
            Frame(here, line_of(TAGS, "for p in platforms(raw)"), "tags"),
            Frame(here, line_of(TAGS, "_, arch = linux.split"), "platforms"),
        ],
        covered=[f"{here}:{line_of(TAGS, f'def {name}(')}" for name in TAGS_DEFS],
    )
    located = locate(failure, str(tmp_path))
    assert [s.qualname for s in located.suspects] == ["platforms", "normalize", "tags"]
    assert located.suspects[1].reason.startswith("computes a value used where it was raised")


TAGS_DEFS = ("normalize", "platforms", "tags")


TABLE = """\
def cut(text, width):
    return text[:width]


def render(rows, width=None):
    if width:
        rows = narrow(rows, width)
    return "\\n".join(rows)


def narrow(rows, width):
    return [cut(row, width) for row in rows]
"""
TABLE_TEST = """\
from table import render


def test_plain():
    assert render(["abc"]) == "abc"


def test_width():
    assert render(["abc d"], width=3) == "abc\\nd"
"""


def test_of_functions_only_the_failing_test_ran_the_one_the_failing_line_calls_first_leads(
    tmp_path,
):
    """`cut` and `narrow` ran only in the failing test (DStar alike): `render`, called on the
    failing line, calls `narrow`, which calls `cut`: `narrow` is where the failing run left
    the passing one's path, and comes first, though `cut` is listed first in the module."""
    from heal_ls.models import RunResult
    from heal_ls.models import TestOutcome as Outcome

    from tests.helpers.locate import failing_test, keys_of, write_project

    here, test_path = write_project(tmp_path, "table", TABLE, TABLE_TEST)
    cut, render, narrow = keys_of(here, TABLE, ("cut", "render", "narrow"))
    nodeid = "tests/test_table.py::test_width"
    error = ("AssertionError", "assert 'abc' == 'abc\\nd'")
    failure = failing_test(test_path, nodeid, 9, error, [], [cut, render, narrow])
    plain = Outcome("tests/test_table.py::test_plain", "passed", covered=[render])
    run = RunResult(str(tmp_path), 1, 1, failures=[failure], tests=[plain])
    suspects = locate(failure, str(tmp_path), run).suspects
    assert [s.qualname for s in suspects] == ["narrow", "cut", "render"]
    assert suspects[0].reason.startswith("ran only in failing tests")
