"""The bundled examples/bench bugs are real bugs: each fails its tests and its reference passes.

Also the bench's own helpers: the reference splice and the random differential check.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from heal_ls.bench.differential import CHILD, behaves_alike
from heal_ls.bench.reference import (
    function_text,
    reference_module,
    same_function,
    same_functions,
    with_function,
)
from heal_ls.bench.suites import SuiteError, examples_suite, load_suite
from heal_ls.testing.agent import heal_protocol as wire
from heal_ls.testing.prestart import PLUGIN_DIR

CASES = examples_suite()


def test_examples_suite_has_twenty_plus_well_formed_bugs():
    assert len(CASES) >= 20
    for case in CASES:
        with open(case.target, encoding="utf-8", newline="") as handle:
            module = handle.read()
        buggy = function_text(module, case.qualname)
        assert buggy is not None, case.name
        assert not same_function(buggy, case.reference_source), case.name
        compile(reference_module(module, case), case.target, "exec")


def test_unknown_bug_and_suite_are_clear_errors():
    with pytest.raises(SuiteError, match="no such bug"):
        load_suite("examples", only=["no_such_bug"])
    with pytest.raises(SuiteError, match="unknown suite"):
        load_suite("nope")


def test_same_functions_knows_each_reference_from_its_bug():
    for case in CASES:  # decorated methods (temperature's @staticmethod) included
        with open(case.target, encoding="utf-8", newline="") as handle:
            module = handle.read()
        assert same_functions(reference_module(module, case), case), case.name
        assert not same_functions(module, case), case.name


def test_multi_node_references_replace_append_and_import():
    (order,) = [c for c in CASES if c.name == "order_total"]
    (mean,) = [c for c in CASES if c.name == "exact_mean"]
    with open(order.target, encoding="utf-8") as handle:
        fixed = reference_module(handle.read(), order)
    assert 'line["price"] * line["qty"]' in fixed and fixed.endswith("+ shipping\n")
    with open(mean.target, encoding="utf-8") as handle:
        fixed = reference_module(handle.read(), mean)
    assert fixed.startswith('"""Exact statistics on integers."""\nfrom fractions import Fraction\n')


def test_with_function_keeps_indentation_crlf_and_the_rest():
    module = "class A:\r\n    x = 1\r\n\r\n    def f(self):\r\n        return 1\r\n\r\ny = 2\r\n"
    new = with_function(module, "A.f", "def f(self):\n    return 2\n")
    assert new == module.replace("return 1", "return 2")
    nested = "def outer():\n    def inner():\n        return 1\n    return inner\n"
    assert function_text(nested, "outer.<locals>.inner") == "def inner():\n    return 1\n"


async def test_differential_check_tells_alike_from_different(tmp_path):
    path = str(tmp_path / "m.py")
    ref = "def f(n):\n    return n + n\n"
    alike = await behaves_alike(str(tmp_path), path, "def f(n):\n    return 2 * n\n", ref, "f")
    other = await behaves_alike(str(tmp_path), path, "def f(n):\n    return n * n\n", ref, "f")
    hangs = "def f(n):\n    while True:\n        pass\n"
    stuck = await behaves_alike(str(tmp_path), path, hangs, ref, "f")
    assert (alike, other, stuck) == ("behaves", "differs", "differs")
    assert await behaves_alike(str(tmp_path), path, ref, ref, "A.f") == "?"


def test_the_differential_child_reads_its_input_strictly(tmp_path):
    ref = "def f(n):\n    return n\n"
    given = wire.Differential(str(tmp_path), str(tmp_path / "m.py"), "f", ref, ref, 5)
    child = [sys.executable, "-c", CHILD, PLUGIN_DIR]
    run = lambda text: subprocess.run(child, input=text, capture_output=True, text=True)  # noqa: E731
    assert run(wire.encode(given)).stdout == "VERDICT behaves\n"
    refused = run(json.dumps({**json.loads(wire.encode(given)), "min": "5"}))
    assert not refused.stdout and refused.returncode == 1
    assert "TypeError: Differential: field 'min' is str, not int" in refused.stderr


def _results(folder) -> dict[str, str]:
    """Run pytest once over every bug folder in `folder`: {node id: PASSED|FAILED|ERROR}."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "."],
        cwd=folder, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    pattern = r"^(PASSED|FAILED|ERROR) (\S+?::\S+)"
    return {nodeid: outcome for outcome, nodeid in re.findall(pattern, proc.stdout, re.M)}


def _outcomes(folder) -> dict[str, set[str]]:
    """Outcomes per bug ("<bug>/hidden" for its hidden tests)."""
    found: dict[str, set[str]] = {}
    for nodeid, outcome in _results(folder).items():
        bug, rest = nodeid.split("/", 1)
        found.setdefault(bug + ("/hidden" if rest.startswith("hidden/") else ""), set()).add(
            outcome
        )
    return found


@pytest.mark.e2e
def test_every_bug_fails_and_every_reference_passes(tmp_path):
    """Also its hidden tests: they fail on the bug (they test it) and pass on the reference."""
    buggy, fixed = tmp_path / "buggy", tmp_path / "fixed"
    for case in CASES:
        for dest in (buggy, fixed):
            shutil.copytree(case.root, dest / case.name)
            (dest / case.name / "hidden").mkdir()
            shutil.copy(case.hidden_tests, dest / case.name / "hidden")
        target = fixed / case.name / case.target[len(case.root) + 1 :]
        module = target.read_bytes().decode("utf-8")
        target.write_bytes(reference_module(module, case).encode())
    before, after = _outcomes(buggy), _outcomes(fixed)
    for case in CASES:
        assert "FAILED" in before.get(case.name, set()), case.name
        assert "FAILED" in before.get(case.name + "/hidden", set()), case.name
        assert after.get(case.name) == {"PASSED"}, case.name
        assert after.get(case.name + "/hidden") == {"PASSED"}, case.name


def test_hidden_tests_live_outside_each_bug_folder():
    """The heal works on a copy of the bug's folder: its hidden tests must not be in it."""
    for case in CASES:
        assert case.hidden_tests, f"{case.name} has no examples/bench/hidden/test_hidden_<bug>.py"
        assert not case.hidden_tests.startswith(case.root + "/"), case.name
        assert "def test_" in Path(case.hidden_tests).read_text(encoding="utf-8"), case.name


# The bugs built so that a cheap edit passes the failing test but breaks a sibling test that
# passes on the bug: (text in the buggy module, the overfit edit). Only a guard stops it.
OVERFITS = {
    "median": ("len(s) // 2", "len(s) // 3"),
    "push_upstream": ('"push" in parts and', '"push" in parts or'),
    "sudo_program": ("first = words[0]", "first = words[1]"),
    "weekend": ("if short in", "if short not in"),
}


@pytest.mark.e2e
def test_sibling_breaking_bugs_have_an_overfit_that_only_a_guard_stops(tmp_path):
    buggy, overfit = tmp_path / "buggy", tmp_path / "overfit"
    for case in (c for c in CASES if c.name in OVERFITS):
        for dest in (buggy, overfit):
            shutil.copytree(case.root, dest / case.name)
        target = overfit / case.name / case.target[len(case.root) + 1 :]
        old, new = OVERFITS[case.name]
        assert target.read_text().count(old) == 1, case.name
        target.write_text(target.read_text().replace(old, new))
    before, after = _results(buggy), _results(overfit)
    for name in OVERFITS:
        mine = sorted(n for n in before if n.startswith(name + "/"))
        failing = [n for n in mine if before[n] != "PASSED"]
        siblings = [n for n in mine if before[n] == "PASSED"]
        assert failing and siblings, name
        assert all(after[n] == "PASSED" for n in failing), (name, after)  # the overfit passes
        assert any(after[n] != "PASSED" for n in siblings), (name, after)  # and breaks a sibling
