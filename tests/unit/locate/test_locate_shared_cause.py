"""locate() when other tests failed in the same run (issue 22, ranking): one fault behind them all
lies in code every failing test ran. After a crash, a function that made a value the raising line
read and that every failing test ran comes before a raise site some of them never ran; after a
failed check, a block specific to the failing tests promotes its function over the failing line's
calls only in a function every failing test ran, and only such calls set the bar."""

from heal_ls.locate import locate
from heal_ls.models import Frame, RunResult
from heal_ls.models import TestOutcome as Outcome

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
    assert "every failing test ran it; some never ran the raise site" in located.suspects[0].reason


def test_a_raise_site_every_failing_test_ran_stays_first(tmp_path):
    crash, run = failures(tmp_path, generic_ran_the_raise_site=True)
    located = locate(crash, str(tmp_path), run)
    assert [s.qualname for s in located.suspects[:2]] == ["linux_platforms", "normalize"]


def test_alone_the_raise_site_stays_first(tmp_path):
    crash, _ = failures(tmp_path)
    located = locate(crash, str(tmp_path), RunResult(str(tmp_path), 0, 1, failures=[crash]))
    assert [s.qualname for s in located.suspects[:2]] == ["linux_platforms", "normalize"]


SPEC = """\
class Spec:
    def __init__(self, text):
        self.op = text[0]
        self.version = text[1:]

    def prereleases(self):
        if self.op in "=<":
            return "a" in self.version
        return False

    def filter(self, versions):
        if self.prereleases():
            return list(versions)
        kept = []
        for version in versions:
            if "a" not in version:
                kept.append(version)
        return kept
"""
SPEC_TEST = """\
from spec import Spec


def test_filter():
    assert Spec(">1a").filter(["1a", "2"]) == ["1a", "2"]


def test_prereleases():
    assert Spec(">1a").prereleases()
"""


def filtered(tmp_path, alone=False):
    """test_filter failed through `filter`'s loop, a block no passing test took; test_prereleases
    failed too and never ran `filter`; `prereleases`'s branch ran in both and in three passing
    tests (the `=` and `<` specs it handles); five more passing tests only built a Spec."""
    here, test_path = write_project(tmp_path, "spec", SPEC, SPEC_TEST)
    keys = keys_of(here, SPEC, ("__init__", "prereleases", "filter"))
    branch = line_of(SPEC, 'return "a" in self.version')
    loop = {here: [branch, line_of(SPEC, "kept = []"), line_of(SPEC, 'if "a" not in')]}
    error = ("AssertionError", "assert ['2'] == ['1a', '2']")
    nodeid = "tests/test_spec.py::test_filter"
    failure = failing_test(test_path, nodeid, 5, error, [], keys, loop)
    other = failing_test(
        test_path,
        "tests/test_spec.py::test_prereleases",
        9,
        ("AssertionError", "assert False"),
        [],
        keys[:2],
        {here: [branch]},
    )
    passing = [
        Outcome(f"t::test_{n}", "passed", covered=keys, blocks={here: [branch]}) for n in range(3)
    ]
    passing += [Outcome(f"t::test_{n}", "passed", covered=keys[:1], blocks={}) for n in range(5)]
    failures = [failure] if alone else [failure, other]
    return failure, RunResult(str(tmp_path), 8, 2, failures=failures, tests=passing)


def test_a_block_some_failing_tests_never_ran_does_not_outrank_what_they_all_ran(tmp_path):
    failure, run = filtered(tmp_path)
    located = locate(failure, str(tmp_path), run)
    assert located.suspects[0].qualname == "Spec.prereleases"
    assert "ran in the failing tests and in few passing ones" in located.suspects[0].reason


def test_alone_the_called_function_with_the_specific_block_stays_first(tmp_path):
    failure, run = filtered(tmp_path, alone=True)
    located = locate(failure, str(tmp_path), run)
    assert located.suspects[0].qualname == "Spec.filter"


NET = """\
def fetch(url):
    raise OSError("network is unreachable")
"""


def with_unrelated_failure(tmp_path, failure, run):
    """`run` plus a failing test of another module that ran none of the focused test's functions
    (a network test: it ran only `net.fetch`), the run's other tests unchanged."""
    (tmp_path / "net.py").write_text(NET)
    unrelated = failing_test(
        str(tmp_path / "tests" / "test_net.py"),
        "tests/test_net.py::test_fetch",
        2,
        ("OSError", "network is unreachable"),
        [Frame(str(tmp_path / "net.py"), 2, "fetch")],
        keys_of(str(tmp_path / "net.py"), NET, ("fetch",)),
    )
    failures = [*run.failures, unrelated]
    return RunResult(run.root, run.passed, len(failures), failures=failures, tests=run.tests)


def ranking(failure, tmp_path, run):
    return [(s.qualname, s.reason) for s in locate(failure, str(tmp_path), run).suspects]


def test_an_unrelated_failure_does_not_change_the_crash_ranking(tmp_path):
    crash, run = failures(tmp_path)
    unrelated = with_unrelated_failure(tmp_path, crash, run)
    assert ranking(crash, tmp_path, unrelated) == ranking(crash, tmp_path, run)
    assert ranking(crash, tmp_path, unrelated)[0][0] == "normalize"


def test_an_unrelated_failure_does_not_change_the_block_ranking(tmp_path):
    failure, run = filtered(tmp_path)
    unrelated = with_unrelated_failure(tmp_path, failure, run)
    assert ranking(failure, tmp_path, unrelated) == ranking(failure, tmp_path, run)
    assert ranking(failure, tmp_path, unrelated)[0][0] == "Spec.prereleases"
