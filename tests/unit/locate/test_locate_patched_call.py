"""locate() when the failing line calls a library's function that a module of ours replaced
with its own def while the test runs (`time.time_ns = fake_time_ns`, a freezer's patch): the
line's call ran that def, so it is ranked as the line's call, before the act that installed
the patch (issue 22, ranking: freezegun's `fake_time_ns` truncating to whole seconds, checked
by `assert time.time_ns() == ...` after `freezer.start()`)."""

from heal_ls.locate import locate

from tests.helpers.locate import failed_run, keys_of, write_project

CLOCK = """\
import time

real_time = time.time


def fake_time():
    return float(int(FROZEN[0]))


def start(moment):
    FROZEN[:] = [moment]
    time.time = fake_time


def stop():
    time.time = real_time


FROZEN = []
"""
TEST = """\
import time

from clock import start


def test_frozen():
    start(1.5)
    assert time.time() == 1.5
"""


def ranked(tmp_path, clock: str = CLOCK) -> list[str]:
    here, test_path = write_project(tmp_path, "clock", clock, TEST)
    covered = keys_of(here, clock, ("start", "fake_time"))
    nodeid = "tests/test_clock.py::test_frozen"
    error = ("AssertionError", "assert 1.0 == 1.5")
    failure, run = failed_run(tmp_path, test_path, nodeid, 8, error, [], covered)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_the_def_patched_in_for_the_called_function_comes_first(tmp_path):
    assert ranked(tmp_path)[:2] == ["fake_time", "start"]


def test_without_the_patch_the_act_before_the_check_comes_first(tmp_path):
    """No module of ours puts fake_time in time.time's place: the line ran Python's."""
    clock = CLOCK.replace("time.time = fake_time", "time.clock_time = fake_time")
    assert ranked(tmp_path, clock)[0] == "start"
