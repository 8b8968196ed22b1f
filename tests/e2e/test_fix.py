"""`heal-ls fix` end to end: real pytest runs, real SDKs against the fake model server."""

from __future__ import annotations

import json
import subprocess

import pytest
from heal_ls.heal.config import HealConfig
from helpers.cli import heal_ls, openai_env, write
from helpers.fakemodel import FakeModelServer
from helpers.fixes import example_fixes
from helpers.heal import heal_first_target

pytestmark = pytest.mark.e2e

FIXES = example_fixes()
# One real `heal-ls fix` per path: the tests' (inventory) and a script's (script_crash, whose
# tests pass: its bug shows only when the script runs). Every other example is healed the same
# way in-process by tests/e2e/test_heal_examples.py.
TARGET_ARGS = {"inventory": [], "script_crash": ["--script", "tools/report.py"]}


@pytest.mark.parametrize("name", sorted(TARGET_ARGS))
def test_fix_apply_heals_the_example_with_the_fake_model(name, example_copy):
    root = example_copy(name)
    fix = FIXES[name]
    target = TARGET_ARGS[name]
    before = (root / fix.path).read_text()
    with FakeModelServer(functions={fix.qualname: fix.fixed_function(root)}) as server:
        proc = heal_ls(
            "fix",
            str(root),
            *target,
            "--provider",
            "openai",
            "--apply",
            "--json",
            "--no-cache",
            env=openai_env(server),
            triage=name == "inventory",  # one run as a user's: the failing test re-run first
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        result = json.loads(proc.stdout)["results"][0]
        assert result["status"] == "verified"
        assert result["applied"] is True
        assert result["suspect"].endswith("::" + fix.qualname)
        assert result["tokens"] > 0
        assert len(server.requests) == 1
    after = (root / fix.path).read_text()
    assert after == before.replace(fix.buggy, fix.fixed)
    assert heal_ls("check", str(root), *target).returncode == 0


def test_fix_without_apply_prints_diff_and_writes_nothing(example_copy):
    root = example_copy("inventory")
    fix = FIXES["inventory"]
    before = (root / fix.path).read_bytes()
    with FakeModelServer(functions={fix.qualname: fix.fixed_function(root)}) as server:
        proc = heal_ls(
            "fix", str(root), "--provider", "openai", "--no-cache", env=openai_env(server)
        )
    assert proc.returncode == 0, proc.stderr
    assert f"-        {fix.buggy.strip()}" in proc.stdout or f"-{fix.buggy}" in proc.stdout
    assert "+++ b/shop/inventory.py" in proc.stdout
    assert (root / fix.path).read_bytes() == before


HOSTILE = {
    "garbage": "I am sorry, I cannot see the problem.",
    "syntax": "```python\ndef remove(self, name:\n    return\n```",
    "renamed": "```python\ndef remove_item(self, name):\n    del self.items[name]\n```",
    "os_system": (
        "```python\ndef remove(self, name):\n    import os\n    os.system('rm -rf /tmp/x')\n"
        "    self.items.pop(name, None)\n```"
    ),
}


# One hostile answer through the CLI with --apply (the safety rail's refusal, nothing written);
# the others are read and refused by the engine in the test's process, as the CLI would.
def test_a_hostile_answer_through_the_cli_changes_nothing(example_copy):
    root = example_copy("inventory")
    target = root / FIXES["inventory"].path
    before = target.read_bytes()
    with FakeModelServer(default=HOSTILE["os_system"]) as server:
        proc = heal_ls(
            "fix",
            str(root),
            "--provider",
            "openai",
            "--apply",
            "--json",
            "--max-attempts",
            "2",
            "--no-cache",
            env=openai_env(server),
        )
    assert proc.returncode == 1, proc.stderr
    result = json.loads(proc.stdout)["results"][0]
    assert result["status"] in ("failed", "unverified")
    assert result["applied"] is False
    assert target.read_bytes() == before


@pytest.mark.parametrize("kind", sorted(set(HOSTILE) - {"os_system"}))
def test_hostile_answers_are_never_verified(kind, example_copy, monkeypatch):
    root = example_copy("inventory")
    with FakeModelServer(default=HOSTILE[kind]) as server:
        for variable, value in openai_env(server).items():
            monkeypatch.setenv(variable, value)
        config = HealConfig(provider="openai", max_attempts=2, use_cache=False)
        result = heal_first_target(root, config)
        assert len(server.requests) == 2  # each answer was read, refused, and asked again
    assert result.status in ("failed", "unverified"), result.status
    assert result.new_source is None or result.status == "unverified"
    assert [a.outcome for a in result.attempts] and all(
        a.outcome != "verified" for a in result.attempts
    )


def test_retry_feeds_back_the_failure_and_verifies_the_second_answer(example_copy):
    root = example_copy("stats")
    fix = FIXES["stats"]
    wrong = fix.fixed_function(root).replace("total += value", "total -= value")
    with FakeModelServer() as server:
        server.push(f"```python\n{wrong}```")
        server.push(f"```python\n{fix.fixed_function(root)}```")
        proc = heal_ls(
            "fix", str(root), "--provider", "openai", "--json", "--no-cache", env=openai_env(server)
        )
        assert proc.returncode == 0, proc.stderr
        assert len(server.requests) == 2
        second_prompt = server.requests[1].prompt_text
    assert "total -= value" in second_prompt  # the failed candidate is remembered
    assert "test_mean" in second_prompt  # with why it failed
    assert json.loads(proc.stdout)["results"][0]["status"] == "verified"


def test_cache_hit_costs_no_model_call(example_copy, tmp_path):
    root = example_copy("inventory")
    fix = FIXES["inventory"]
    env_cache = {"HEAL_LS_CACHE_DIR": str(tmp_path / "cache")}
    with FakeModelServer(functions={fix.qualname: fix.fixed_function(root)}) as server:
        env = {**openai_env(server), **env_cache}
        first = heal_ls("fix", str(root), "--provider", "openai", "--json", env=env)
        assert first.returncode == 0, first.stderr
        second = heal_ls("fix", str(root), "--provider", "openai", "--json", env=env)
        assert second.returncode == 0, second.stderr
        assert len(server.requests) == 1
    assert json.loads(second.stdout)["results"][0]["tokens"] == 0
    assert "cached" in json.loads(second.stdout)["results"][0]["reason"]


def test_show_prompt_makes_no_call(example_copy):
    root = example_copy("inventory")
    with FakeModelServer() as server:
        proc = heal_ls(
            "fix", str(root), "--provider", "openai", "--show-prompt", env=openai_env(server)
        )
        assert server.requests == []
    assert proc.returncode == 0, proc.stderr
    assert "def remove(self, name" in proc.stdout
    assert "test_remove_all" in proc.stdout


def test_apply_refuses_uncommitted_changes_without_force(example_copy):
    root = example_copy("inventory")
    fix = FIXES["inventory"]
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    target = root / fix.path
    before = target.read_bytes()
    with FakeModelServer(functions={fix.qualname: fix.fixed_function(root)}) as server:
        proc = heal_ls(
            "fix",
            str(root),
            "--provider",
            "openai",
            "--apply",
            "--json",
            "--no-cache",
            env=openai_env(server),
        )
    result = json.loads(proc.stdout)["results"][0]
    assert result["status"] == "verified" and result["applied"] is False
    assert "uncommitted" in result["reason"]
    assert proc.returncode == 1  # --apply that applied nothing is not a success
    assert target.read_bytes() == before


def test_provider_error_is_one_clear_line(example_copy):
    root = example_copy("inventory")
    with FakeModelServer() as server:
        server.push_error(401, "invalid x-api-key")
        proc = heal_ls(
            "fix", str(root), "--provider", "openai", "--json", "--no-cache", env=openai_env(server)
        )
    result = json.loads(proc.stdout)["results"][0]
    assert proc.returncode == 1
    assert result["status"] == "failed"
    assert "401" in result["reason"] or "auth" in result["reason"].lower()
    assert "test-key-not-real" not in proc.stdout + proc.stderr


@pytest.mark.parametrize("name", sorted(TARGET_ARGS))
def test_local_provider_heals_without_network(name, example_copy):
    root = example_copy(name)
    fix = FIXES[name]
    target = TARGET_ARGS[name]
    before = (root / fix.path).read_text()
    proc = heal_ls(
        "fix", str(root), *target, "--provider", "local", "--apply", "--json", "--no-cache"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)["results"][0]
    assert result["status"] == "verified" and result["tokens"] == 0
    assert heal_ls("check", str(root), *target).returncode == 0
    diff_lines = [
        line
        for line in result["diff"].splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert len(diff_lines) == 2  # one line out, one line in: a node-local, minimal edit
    assert diff_lines[0] == "-" + next(line for line in before.splitlines() if fix.buggy in line)


def test_local_budget_is_respected_and_nothing_is_written(example_copy):
    root = example_copy("inventory")
    target = root / FIXES["inventory"].path
    before = target.read_bytes()
    proc = heal_ls(
        "fix",
        str(root),
        "--provider",
        "local",
        "--local-budget",
        "1",
        "--apply",
        "--json",
        "--no-cache",
    )
    result = json.loads(proc.stdout)["results"][0]
    assert proc.returncode == 1
    assert result["status"] == "unverified" and result["attempts"] == 1
    assert target.read_bytes() == before


def test_collection_error_in_a_broken_module_is_skipped_with_its_reason(example_copy):
    root = example_copy("stats")
    (root / "figures" / "extra.py").write_text("def broken(:\n    pass\n")
    test_file = root / "tests" / "test_stats.py"
    test_file.write_text("from figures.extra import broken\n" + test_file.read_text())
    proc = heal_ls("fix", str(root), "--provider", "local", "--json", "--no-cache")
    assert proc.returncode == 1, proc.stderr
    result = json.loads(proc.stdout)["results"][0]
    assert result["test"] == "collect:tests/test_stats.py"
    assert result["status"] == "skipped" and "does not parse" in result["reason"]


def test_a_failing_test_that_passes_on_a_rerun_is_flaky_and_not_healed(tmp_path):
    """`fix` triages like the editor: re-runs stop at the first pass, and a flaky test is
    reported, never healed (no candidate for a function that is not at fault)."""
    counter = tmp_path / "runs"
    write(
        tmp_path / "proj",
        {
            "calc.py": "def add(a, b):\n    return a + b\n",
            "test_calc.py": f"""\
                from calc import add

                def test_add():
                    with open({str(counter)!r}, "a+") as runs:
                        runs.write("x")
                        runs.seek(0)
                        first_three = len(runs.read()) <= 3
                    assert add(2, 3) == (6 if first_three else 5)
                """,
        },
    )
    env = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    proc = heal_ls(
        "fix", str(tmp_path / "proj"), "--provider", "local", "--json", env=env, triage=True
    )
    row = json.loads(proc.stdout)["results"][0]
    assert row["status"] == "skipped" and row["reason"].startswith("flaky: passed 1 of ")
    assert len(counter.read_text()) == 4  # the run that found it, then re-runs to the first pass
    assert (tmp_path / "proj" / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
