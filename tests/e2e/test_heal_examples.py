"""Each example healed in-process: `diagnose` runs its tests (or its script) and locates the
failures, `heal_failure` heals the first target, with the fake model's answer through the real
OpenAI SDK or with the local repairer, each candidate verified by real pytest runs; the healed
module makes the whole run pass. tests/e2e/test_fix.py keeps one `heal-ls fix` subprocess per
path (the CLI, --apply, --script, --json); the per-example rows live here, without a CLI
process and a `heal-ls check` per row."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from heal_ls.diagnose import diagnose
from heal_ls.heal.config import HealConfig
from heal_ls.models import HealResult
from helpers.cli import openai_env
from helpers.fakemodel import FakeModelServer
from helpers.fixes import example_fixes
from helpers.heal import heal_first_target

pytestmark = pytest.mark.e2e

FIXES = example_fixes()
# script_crash's tests pass: its bug shows only when the script runs.
SCRIPTS = {"script_crash": "tools/report.py"}
# The rows tests/e2e/test_fix.py runs through `heal-ls fix` itself.
CLI_ROWS = {"inventory", "script_crash"}


def passes_after(root: Path, result: HealResult) -> bool:
    """The verified module written, the example's whole run (or its script) passes."""
    assert result.suspect is not None and result.new_source is not None
    Path(result.suspect.path).write_text(result.new_source)
    run, _ = asyncio.run(diagnose(root, script=SCRIPTS.get(root.name)))
    return run.error is None and not run.failures


@pytest.mark.parametrize("name", sorted(set(FIXES) - CLI_ROWS))
def test_the_fake_models_fix_heals_each_example(name, example_copy, monkeypatch):
    root = example_copy(name)
    fix = FIXES[name]
    before = (root / fix.path).read_text()
    with FakeModelServer(functions={fix.qualname: fix.fixed_function(root)}) as server:
        for variable, value in openai_env(server).items():
            monkeypatch.setenv(variable, value)
        result = heal_first_target(
            root, HealConfig(provider="openai", use_cache=False), SCRIPTS.get(name)
        )
        assert result.status == "verified", result.reason
        assert result.suspect is not None and result.suspect.qualname == fix.qualname
        assert result.tokens > 0
        assert len(server.requests) == 1
    assert result.new_source == before.replace(fix.buggy, fix.fixed)
    assert passes_after(root, result)


# Every example but `hang`, whose wrong candidates each cost a full test timeout.
@pytest.mark.parametrize("name", sorted(set(FIXES) - CLI_ROWS - {"hang"}))
def test_the_local_repairer_heals_each_example_with_a_one_line_edit(name, example_copy):
    root = example_copy(name)
    fix = FIXES[name]
    before = (root / fix.path).read_text()
    result = heal_first_target(
        root, HealConfig(provider="local", use_cache=False), SCRIPTS.get(name)
    )
    assert result.status == "verified", result.reason
    assert result.tokens == 0
    diff_lines = [
        line
        for line in result.diff.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert len(diff_lines) == 2  # one line out, one line in: a node-local, minimal edit
    assert diff_lines[0] == "-" + next(line for line in before.splitlines() if fix.buggy in line)
    assert passes_after(root, result)
