"""locate() when pytest's explanation of the failed assert shows a call on the failing line ran
a built-in (issue 22, ranking): `Clock.at(t).stamp()` where `at` returned a plain `Moment`
instead of a `FakeMoment`; the explanation says `<built-in method stamp of Moment object>`, so
`FakeMoment.stamp`, which the test ran elsewhere, is no call of that line: `at` comes first
(freezegun's FakeDatetime.fromtimestamp returning a real datetime)."""

import pytest
from heal_ls.locate import locate
from heal_ls.models import RunResult

from tests.helpers.locate import failing_test, line_of, write_project

CLOCK = """\
class FakeMoment:
    def stamp(self):
        return 0.0


class Clock:
    def at(self, t):
        return FakeMoment()
"""
TEST = """\
from clock import Clock, FakeMoment


def test_stamp_round_trip():
    FakeMoment().stamp()
    assert Clock().at(1.0).stamp() == 1.0
"""
RAN = (
    "assert -3599.0 == 1.0\n"
    " +  where -3599.0 = <{} method stamp of {} object at 0x7f37fe683540>()\n"
    " +    where <{} method stamp of {} object at 0x7f37fe683540> = Moment(1.0).stamp"
)


@pytest.mark.parametrize(
    ("kind", "first"),
    [(("built-in", "Moment"), "Clock.at"), (("bound", "FakeMoment"), "FakeMoment.stamp")],
)
def test_a_built_in_call_is_no_call_of_ours(tmp_path, kind, first):
    here, test_path = write_project(tmp_path, "clock", CLOCK, TEST)
    keys = [f"{here}:{line_of(CLOCK, n)}" for n in ("def stamp", "def at")]
    error = ("AssertionError", RAN.format(*kind, *kind))
    failure = failing_test(
        test_path, "tests/test_clock.py::test_stamp_round_trip", 6, error, [], keys
    )
    run = RunResult(str(tmp_path), 0, 1, failures=[failure])
    located = locate(failure, str(tmp_path), run)
    assert located.suspects[0].qualname == first
