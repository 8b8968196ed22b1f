"""RunOptions (testing/options.py): the run options chosen once and handed down unchanged by the
run-and-locate pipeline, its contrast run and the traced coverage run (guard discovery)."""

from __future__ import annotations

import asyncio
import inspect
from dataclasses import replace

from heal_ls import diagnose as diagnose_module
from heal_ls.models import Failure, RunResult
from heal_ls.models import TestOutcome as Outcome
from heal_ls.testing import coverage_run as coverage_module
from heal_ls.testing import runner
from heal_ls.testing.agent.heal_env import EXCLUDE_OPTION
from heal_ls.testing.options import RunOptions
from heal_ls.testing.sandbox_policy import SandboxPolicy

WARM = object()  # stands for a warm runner: passed on by identity, never looked into
OPTIONS = RunOptions("/py/bin/python", ["-x"], 7.0, 90.0, {"/w/m.py": "x = 1\n"}, WARM)


def test_run_pytest_takes_the_options_whole_and_only_the_call_s_own_things_beside():
    parameters = inspect.signature(runner.run_pytest).parameters
    assert list(parameters) == ["root", "options", "nodeids", "on_row", "recording", "started"]
    assert OPTIONS.pytest_args == ("-x",)  # a list from argparse is kept as a tuple
    assert RunOptions(sandbox=True).policy == SandboxPolicy()  # True is the default policy
    assert RunOptions(sandbox=False).sandbox is None and RunOptions().policy is None


def test_diagnose_hands_every_option_to_the_run_of_the_tests_files(tmp_path, monkeypatch):
    (tmp_path / "m.py").write_text("def f():\n    return 1\n")
    seen: list = []
    failing = Failure(id="t::a", exc_type="E", message="", test="t::a", covered=["m.py:1"])

    async def run_pytest(root, options, **kwargs):
        seen.append((options, kwargs))
        return RunResult(root=root, failed=1, failures=[failing], tests=[Outcome("t::a", "failed")])

    monkeypatch.setattr(diagnose_module, "run_pytest", run_pytest)
    asyncio.run(diagnose_module.diagnose(tmp_path, OPTIONS, tests=["t::a"]))
    # the run is the ranking's evidence: it records blocks too (a run without trace could not)
    evidence = replace(OPTIONS, blocks=True)
    call = {"nodeids": ["t"], "on_row": None, "recording": [], "started": None}
    assert seen == [(evidence, call)]
    assert seen[0][0].warm is WARM
    seen.clear()
    untraced = replace(OPTIONS, trace=False)
    asyncio.run(diagnose_module.diagnose(tmp_path, untraced, tests=["t::a"]))
    assert seen[0][0] == untraced


def test_a_script_runs_with_the_interpreter_run_timeout_and_overlay(tmp_path, monkeypatch):
    seen: dict = {}

    async def run_script(root, path, options):
        seen.update(path=path, options=options)
        return RunResult(root=root)

    monkeypatch.setattr(diagnose_module, "run_script", run_script)
    asyncio.run(diagnose_module.diagnose(tmp_path, OPTIONS, script="tool.py"))
    assert seen == {"path": "tool.py", "options": OPTIONS}


def test_the_coverage_run_adds_its_exclusions_trace_and_timeout_to_the_options(
    tmp_path, monkeypatch
):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test_x():\n    pass\n")
    seen: dict = {}

    async def run_pytest(root, options, **kwargs):
        seen.update(kwargs, options=options)
        outcome = Outcome(nodeid="tests/test_a.py::test_y", outcome="passed")
        return RunResult(root=root, tests=[outcome], error="not cached: a fake run")

    monkeypatch.setattr(coverage_module, "run_pytest", run_pytest)
    found = asyncio.run(
        coverage_module.coverage_run(
            str(tmp_path), failing=["tests/test_a.py::test_x"], options=OPTIONS
        )
    )
    assert [t.nodeid for t in found.tests] == ["tests/test_a.py::test_y"]
    traced = seen.pop("options")
    assert seen == {"nodeids": ["tests/test_a.py"]}
    assert traced == replace(
        OPTIONS,
        pytest_args=("-x", EXCLUDE_OPTION, "tests/test_a.py::test_x"),
        run_timeout=70.0,  # ten times the per-test timeout, at least a minute
        trace=True,
    )
    assert traced.warm is WARM
