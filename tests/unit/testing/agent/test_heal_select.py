"""Many test ids run as their files, the plugin keeping exactly the ids (agent/heal_select.py):
pytest resolving thousands of parametrized ids one by one costs minutes."""

from __future__ import annotations

import asyncio
import textwrap

from heal_ls.testing.agent.heal_select import named
from heal_ls.testing.invocation import SELECT_OVER, build_pytest_invocation
from heal_ls.testing.options import RunOptions
from heal_ls.testing.runner import run_pytest

IDS = frozenset(
    {
        "tests/test_a.py::test_one[2]",
        "tests/test_a.py::TestBox",
        "tests/test_a.py::test_many",
        "tests/test_b.py",
    }
)


def test_a_test_is_named_by_its_id_its_function_its_class_or_its_file():
    assert named("tests/test_a.py::test_one[2]", IDS)
    assert not named("tests/test_a.py::test_one[3]", IDS)
    assert named("tests/test_a.py::TestBox::test_size", IDS)
    assert named("tests/test_a.py::test_many[a::b]", IDS)  # parameters may hold "::"
    assert not named("tests/test_a.py::test_many_more", IDS)
    assert named("tests/test_b.py::test_x", IDS)
    assert named("tests/test_c.py::test_x", None)  # no selection: every test


def test_many_ids_run_as_their_files_and_the_run_reports_exactly_them(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_cases.py").write_text(
        textwrap.dedent(
            """
            import pytest


            @pytest.mark.parametrize("n", range(300))
            def test_case(n):
                assert n >= 0


            def test_other():
                assert False, "not asked for"
            """
        )
    )
    asked = [f"tests/test_cases.py::test_case[{n}]" for n in range(0, 300, 2)]
    assert len(asked) > SELECT_OVER
    inv = build_pytest_invocation(tmp_path, nodeids=asked)
    assert inv.argv[-1] == "tests/test_cases.py" and asked[0] not in inv.argv
    inv.cleanup()
    run = asyncio.run(run_pytest(tmp_path, RunOptions(trace=False), nodeids=asked))
    assert sorted(t.nodeid for t in run.tests) == sorted(asked)
    assert (run.passed, run.failed, run.complete) == (150, 0, True)
