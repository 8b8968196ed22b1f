"""locate() after a crash when other tests failed in the same run (issue 22, ranking): one fault
behind them all lies in code every failing test ran, so a function that made a value the raising
line read and that every failing test ran comes before a raise site some of them never ran."""

from heal_ls.locate import locate
from heal_ls.models import Frame, RunResult

from tests.helpers.locate import failing_test, keys_of, line_of, write_project

TAGS = """\
def normalize(name):
    return name.replace(".", "_")


def linux_platforms(platform):
    linux = normalize(platform)
    _, arch = linux.split("_", 1)
    return [linux, arch]


def generic_platforms(platform):
    return [normalize(platform)]
"""
TEST = """\
from tags import generic_platforms, linux_platforms


def test_linux_space():
    assert linux_platforms("isilon onefs")


def test_generic_space():
    assert generic_platforms("isilon onefs") == ["isilon_onefs"]
"""


def failures(tmp_path, generic_ran_the_raise_site=False):
    here, test_path = write_project(tmp_path, "tags", TAGS, TEST)
    crash = failing_test(
        test_path,
        "tests/test_tags.py::test_linux_space",
        line_of(TEST, "assert linux_platforms"),
        ("ValueError", "not enough values to unpack (expected 2, got 1)"),
        [Frame(here, line_of(TAGS, '_, arch = linux.split("_", 1)'), "linux_platforms")],
        keys_of(here, TAGS, ("normalize", "linux_platforms")),
    )
    names = ("normalize", "generic_platforms")
    names += ("linux_platforms",) if generic_ran_the_raise_site else ()
    compared = failing_test(
        test_path,
        "tests/test_tags.py::test_generic_space",
        line_of(TEST, "assert generic_platforms"),
        ("AssertionError", "assert ['isilon onefs'] == ['isilon_onefs']"),
        [],
        keys_of(here, TAGS, names),
    )
    return crash, RunResult(str(tmp_path), 0, 2, failures=[crash, compared])


def test_the_value_maker_every_failing_test_ran_comes_before_the_raise_site(tmp_path):
    crash, run = failures(tmp_path)
    located = locate(crash, str(tmp_path), run)
    assert [s.qualname for s in located.suspects[:2]] == ["normalize", "linux_platforms"]
    assert "ran in all 2 failing tests; the raise site in 1" in located.suspects[0].reason


def test_a_raise_site_every_failing_test_ran_stays_first(tmp_path):
    crash, run = failures(tmp_path, generic_ran_the_raise_site=True)
    located = locate(crash, str(tmp_path), run)
    assert [s.qualname for s in located.suspects[:2]] == ["linux_platforms", "normalize"]


def test_alone_the_raise_site_stays_first(tmp_path):
    crash, _ = failures(tmp_path)
    located = locate(crash, str(tmp_path), RunResult(str(tmp_path), 0, 1, failures=[crash]))
    assert [s.qualname for s in located.suspects[:2]] == ["linux_platforms", "normalize"]
