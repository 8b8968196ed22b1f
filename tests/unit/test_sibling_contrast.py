"""A failing test alone in its module has no contrast: its folder's sibling modules lend one.

Every function such a test ran sits at Ochiai 1.00, so the function the test calls ties with
the callee that holds the bug. `check` then runs a few sibling test modules that import the
same package (testing/siblings.py), once, and their passing tests contrast the failure.
"""

import asyncio

from heal_ls import diagnose
from heal_ls.locate.contrast import kept_contrast, sets_apart
from heal_ls.models import Failure, RunResult
from heal_ls.models import TestOutcome as Outcome
from heal_ls.testing.options import RunOptions
from heal_ls.testing.siblings import SIBLING_SECONDS, sibling_modules, sibling_options

CODE = (
    "def parse(text):\n"
    "    if not text:\n"
    "        return []\n"
    "    return [clause(c) for c in text]\n\n\n"
    "def clause(c):\n"
    "    return c.upper() + '!'\n"
)
FAILING = (
    "from pkg.filters import parse\n\n\ndef test_upper():\n    assert parse('ab') == ['A', 'B']\n"
)
PASSING = "from pkg.filters import parse\n\n\ndef test_empty():\n    assert parse('') == []\n"


def project(tmp_path) -> str:
    """pkg.filters.clause adds a '!'; test_upper.py holds only the failing test, its sibling
    test_empty.py a passing test that runs parse but not clause."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "filters.py").write_text(CODE)
    (tmp_path / "test_upper.py").write_text(FAILING)
    (tmp_path / "test_empty.py").write_text(PASSING)
    return str(tmp_path)


def test_a_failing_module_alone_borrows_its_siblings_passing_tests(tmp_path):
    """A real check of test_upper: its file has no passing test; test_empty.py runs, and
    clause, which only the failing test ran, leads (without the sibling: parse, the call on
    the failing line, tied with clause at Ochiai 1.00)."""
    root = project(tmp_path)
    run, [(failure, located)] = asyncio.run(
        diagnose.diagnose(root, RunOptions(), tests=["test_upper.py::test_upper"])
    )
    assert (run.passed, run.failed) == (0, 1)  # the report is the requested test's alone
    assert [s.qualname for s in located.suspects[:2]] == ["clause", "parse"]
    assert located.suspects[0].reason.startswith("ran only in failing tests")


def test_siblings_are_the_folders_test_modules_importing_the_same_package(tmp_path):
    root = project(tmp_path)
    (tmp_path / "test_json.py").write_text(
        "import json\n\n\ndef test_dumps():\n    json.dumps(1)\n"
    )
    (tmp_path / "helpers.py").write_text("from pkg.filters import parse\n")  # no test in it
    (tmp_path / "test_cases.py").write_text(  # a TestCase, and fewer names shared
        "import unittest\n\nimport pkg\n\n\nclass Cases(unittest.TestCase):\n    pass\n"
    )
    (tmp_path / "sub").mkdir()  # another folder: not a sibling
    (tmp_path / "sub" / "test_deep.py").write_text(PASSING)
    assert sibling_modules(root, ["test_upper.py"]) == ["test_empty.py", "test_cases.py"]
    assert sibling_modules(root, ["test_upper.py"], limit=1) == ["test_empty.py"]
    assert sibling_modules(root, ["test_json.py"]) == []  # it imports no package of ours


def test_the_sibling_run_is_bounded_and_leaves_the_users_cache_alone():
    options = sibling_options(RunOptions(run_timeout=300.0, user_cache=True))
    assert (options.run_timeout, options.user_cache, options.spread) == (
        SIBLING_SECONDS,
        False,
        True,
    )
    assert sibling_options(RunOptions(run_timeout=5.0)).run_timeout == 5.0


def test_a_contrast_that_ran_every_function_the_failing_tests_ran_is_not_kept():
    """It sets no function apart, and its blocks would outrank the call on the failing line
    on other modules' inputs alone."""
    parse, clause = "/p/filters.py:1", "/p/filters.py:7"
    failure = Failure(id="t.py::t", exc_type="AssertionError", message="", test="t.py::t",
                      covered=[parse, clause])  # fmt: skip
    ran = [Outcome(failure.id, "failed", covered=[parse, clause])]
    some = [Outcome("s.py::a", "passed", covered=[parse]), Outcome("s.py::b", "failed")]
    every = [*some, Outcome("s.py::c", "passed", covered=[clause])]
    assert sets_apart(RunResult("/p", failures=[failure], tests=[*ran, *some]))
    assert not sets_apart(RunResult("/p", failures=[failure], tests=[*ran, *every]))


def test_a_recheck_ranks_as_the_check_when_the_map_holds_the_siblings_run(tmp_path, monkeypatch):
    """The sibling run is written into the impact map, so a re-check borrows the same tests
    from the map (locate/contrast.with_known). A contrast the first check dropped because it
    set no function apart (every function the failing test ran, its siblings ran too) is
    dropped again: the same failure gets the same suspects, whichever source lent them."""
    root = project(tmp_path)
    (tmp_path / "test_empty.py").write_text(  # runs parse and clause, as the failing test does
        "from pkg.filters import parse\n\n\ndef test_one():\n    assert parse('x') == ['X!']\n"
    )

    def check() -> list[tuple[str, float, str]]:
        _run, [(_failure, located)] = asyncio.run(
            diagnose.diagnose(root, RunOptions(), tests=["test_upper.py::test_upper"])
        )
        return [(s.qualname, round(s.score, 4), s.reason) for s in located.suspects]

    asked = []
    monkeypatch.setattr(
        diagnose, "sibling_modules", lambda *a, **k: asked.append(a) or sibling_modules(*a, **k)
    )
    first = check()
    assert first[1][2] == "ran during the failing test (Ochiai 1.00)"  # the contrast dropped
    assert check() == first
    assert len(asked) == 1  # the re-check found the siblings' tests in the map: no second run


def test_a_contrast_that_sets_nothing_apart_keeps_the_failing_files_own_tests():
    """The failing test's file mates are what a run of its file would have had (the editor's
    run of the test alone borrows them from the map): kept for their blocks; other modules'
    tests that ran the same functions are not (html2text's shape), lent by whoever."""
    parse, clause = "/p/filters.py:1", "/p/filters.py:7"
    failure = Failure(id="t.py::t", exc_type="AssertionError", message="", test="t.py::t",
                      covered=[parse, clause])  # fmt: skip
    run = RunResult("/p", failures=[failure], tests=[Outcome("t.py::t", "failed")])
    mate = Outcome("t.py::u", "passed", covered=[parse, clause])
    sibling = Outcome("s.py::a", "passed", covered=[parse, clause])
    kept = kept_contrast(
        run, RunResult("/p", failures=[failure], tests=[*run.tests, mate, sibling])
    )
    assert [t.nodeid for t in kept.tests] == ["t.py::t", "t.py::u"]
    apart = Outcome("s.py::b", "passed", covered=[parse])
    lent = RunResult("/p", failures=[failure], tests=[*run.tests, apart])
    assert kept_contrast(RunResult("/p", failures=[failure], tests=[*run.tests]), lent) is lent
