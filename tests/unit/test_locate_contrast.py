"""A partial run borrows passing tests for its spectrum: then the failing-only callee leads."""

from heal_ls.locate import locate
from heal_ls.locate.contrast import needs_contrast, with_passing
from heal_ls.models import Failure, Frame, RunResult
from heal_ls.models import TestOutcome as Outcome

CODE = "def parse(text):\n    return [clause(c) for c in text]\n\n\ndef clause(c):\n    return c\n"
TEST = "from filters import parse\n\n\ndef test_parse():\n    assert parse('ab') == []\n"


def test_a_partial_run_ranks_the_callee_first_once_it_has_passing_tests(tmp_path):
    (tmp_path / "filters.py").write_text(CODE)
    (tmp_path / "test_filters.py").write_text(TEST)
    parse, clause = f"{tmp_path / 'filters.py'}:1", f"{tmp_path / 'filters.py'}:5"
    test_path = str(tmp_path / "test_filters.py")
    failure = Failure(
        id="test_filters.py::test_parse", exc_type="AssertionError", message="assert [...] == []",
        frames=[Frame(test_path, 5, "test_parse")], test="test_filters.py::test_parse",
        test_path=test_path, test_line=5, covered=[parse, clause],
    )  # fmt: skip
    run = RunResult(root=str(tmp_path), failed=1, failures=[failure])
    run.tests = [Outcome(failure.id, "failed", covered=[parse, clause])]
    assert needs_contrast(run)
    alone = [s.qualname for s in locate(failure, str(tmp_path), run).suspects]
    assert alone == ["parse", "clause"]
    earlier = [Outcome("test_filters.py::test_empty", "passed", covered=[parse]),
               Outcome("test_filters.py::test_parse", "passed", covered=[parse, clause])]  # fmt: skip
    merged = with_passing(run, earlier)
    assert [t.nodeid for t in merged.tests] == [failure.id, "test_filters.py::test_empty"]
    assert not needs_contrast(merged)
    ranked = locate(failure, str(tmp_path), merged).suspects
    assert [s.qualname for s in ranked] == ["clause", "parse"]
    assert ranked[0].reason.startswith("ran only in failing tests")


def test_the_impact_maps_fresh_passing_tests_contrast_a_run_that_has_none(tmp_path):
    import os
    import time

    from heal_ls.impact.store import ImpactMap
    from heal_ls.locate.contrast import with_known

    (tmp_path / "filters.py").write_text(CODE)
    (tmp_path / "test_filters.py").write_text(TEST + "\n\ndef test_empty():\n    pass\n")
    past = time.time() - 10  # saved before the run that fed the map
    for path in tmp_path.glob("*.py"):
        os.utime(path, (past, past))
    parse, clause = f"{tmp_path / 'filters.py'}:1", f"{tmp_path / 'filters.py'}:5"
    earlier = RunResult(root=str(tmp_path), passed=1, seconds=0.5)
    earlier.tests = [Outcome("test_filters.py::test_empty", "passed", 0.01, covered=[parse])]
    with ImpactMap.open(str(tmp_path)) as impact:
        impact.record(earlier)
    failure = Failure(id="test_filters.py::test_parse", exc_type="AssertionError", message="",
                      test="test_filters.py::test_parse", covered=[parse, clause])  # fmt: skip
    run = RunResult(root=str(tmp_path), failed=1, failures=[failure])
    run.tests = [Outcome(failure.id, "failed", covered=[parse, clause])]
    merged = with_known(run, str(tmp_path))
    assert [(t.nodeid, t.outcome, t.covered) for t in merged.tests[1:]] == [
        ("test_filters.py::test_empty", "passed", [parse])
    ]
    assert not needs_contrast(merged)
    (tmp_path / "filters.py").write_text(CODE.replace("in text]", "in text[::-1]]"))  # edit parse
    assert with_known(run, str(tmp_path)).tests == run.tests  # its rows went with the edit


def test_a_borrowed_test_brings_the_blocks_the_map_kept(tmp_path):
    """Without them the blocks' spectrum of a run with no passing test counts the failing tests
    only: every branch they took scores 1.0, and the call on the failing line leads."""
    import os
    import time

    from heal_ls.impact.store import ImpactMap
    from heal_ls.locate.contrast import with_known

    code = "def parse(text):\n    if text:\n        return [text]\n    return []\n"
    (tmp_path / "filters.py").write_text(code)
    (tmp_path / "test_filters.py").write_text(TEST + "\n\ndef test_empty():\n    pass\n")
    past = time.time() - 10  # saved before the run that fed the map
    for path in tmp_path.glob("*.py"):
        os.utime(path, (past, past))
    filters = str(tmp_path / "filters.py")
    parse = f"{filters}:1"
    earlier = RunResult(root=str(tmp_path), passed=1, seconds=0.5)
    earlier.tests = [
        Outcome(
            "test_filters.py::test_empty", "passed", 0.01, covered=[parse], blocks={filters: [4]}
        )
    ]
    with ImpactMap.open(str(tmp_path)) as impact:
        impact.record(earlier)
    failure = Failure(id="test_filters.py::test_parse", exc_type="AssertionError", message="",
                      test="test_filters.py::test_parse", covered=[parse])  # fmt: skip
    run = RunResult(root=str(tmp_path), failed=1, failures=[failure])
    run.tests = [Outcome(failure.id, "failed", covered=[parse])]
    [borrowed] = with_known(run, str(tmp_path)).tests[1:]
    assert (borrowed.nodeid, borrowed.covered, borrowed.blocks) == (
        "test_filters.py::test_empty",
        [parse],
        {filters: [4]},
    )
