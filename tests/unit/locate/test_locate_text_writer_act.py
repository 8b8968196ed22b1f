"""locate(): the failing check reads what the test's earlier act made and shows wrong text a
def the test ran wrote (issue 22, class K): `with assertRaises(ValueError) as ctx: dumps(v)`,
then `assertIn(str(v), str(ctx.exception))` fails on `'Illegal value: f{obj}'`, a literal of
`_encode`'s raise. The writer made the text; `dumps`, handed `v`, only led to it."""

from heal_ls.locate import locate
from heal_ls.models import RunResult
from heal_ls.models import TestOutcome as Outcome

from tests.helpers.locate import failing_test, keys_of, line_of, write_project

ENCODE = """\
def dumps(obj):
    return _encode(obj)


def _encode(obj):
    if obj != obj:
        raise ValueError('Illegal value: f{obj}')
    return repr(obj)
"""
TEST = """\
import unittest

from encode import dumps


class TestDumps(unittest.TestCase):
    def test_nan(self):
        v = float("nan")
        with self.assertRaises(ValueError) as ctx:
            dumps(v)
        self.assertIn(str(v), str(ctx.exception))
"""
MESSAGE = "'nan' not found in 'Illegal value: f{obj}'"


def ranked(tmp_path, passing_ran: tuple[str, ...]) -> list[str]:
    """The ranking when four passing tests ran the defs `passing_ran` of encode.py."""
    here, test_path = write_project(tmp_path, "encode", ENCODE, TEST)
    keys = keys_of(here, ENCODE, ("dumps", "_encode"))
    nodeid = "tests/test_encode.py::TestDumps::test_nan"
    line = line_of(TEST, "assertIn")
    failure = failing_test(test_path, nodeid, line, ("AssertionError", MESSAGE), [], keys)
    ran = keys_of(here, ENCODE, passing_ran)
    passing = [Outcome(f"tests/test_other.py::test_{n}", "passed", covered=ran) for n in range(4)]
    run = RunResult(str(tmp_path), passed=4, failed=1, failures=[failure], tests=passing)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_the_def_that_wrote_the_checked_text_comes_before_the_act(tmp_path):
    assert ranked(tmp_path, ("dumps", "_encode"))[:2] == ["_encode", "dumps"]


def test_a_writer_passing_tests_run_more_often_stays_after_the_act(tmp_path):
    """Passing tests ran `_encode` and never `dumps`: the act is the more specific evidence."""
    assert ranked(tmp_path, ("_encode",))[:2] == ["dumps", "_encode"]
