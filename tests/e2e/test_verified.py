""" "Verified" means verified: guards always run, only real passes count, cheats change nothing."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest
from heal_ls.heal.verify import verify_module_text
from heal_ls.models import Failure
from heal_ls.testing.options import RunOptions
from helpers.fakemodel import FakeModelServer

pytestmark = pytest.mark.e2e

RULES = """def needs_force(command):
    parts = command.split()
    return "push" in parts and "--force" in parts
"""
TESTS = """from rules import needs_force


def test_force_push():
    assert needs_force("git push --force")


def test_plain_push():
    assert not needs_force("git push")


def test_force_pull():
    assert not needs_force("git pull --force")


def test_force_with_lease():
    assert needs_force("git push --force-with-lease")
"""
FAILING = "tests/test_rules.py::test_force_with_lease"
# Passes the failing test and breaks test_plain_push: the cheapest "fix" a search finds.
OVERFIT = 'def needs_force(command):\n    parts = command.split()\n    return "push" in parts\n'
RIGHT = (
    "def needs_force(command):\n    parts = command.split()\n"
    '    return "push" in parts and any(p.startswith("--force") for p in parts)\n'
)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "conftest.py").write_text('"""Puts this folder on sys.path."""\n')
    (tmp_path / "rules.py").write_text(RULES)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_rules.py").write_text(TESTS)
    return tmp_path


def heal_ls(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "heal_ls", *args],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, **(env or {})},
    )


def provider_env(provider: str, server: FakeModelServer) -> dict:
    if provider == "anthropic":
        return {"ANTHROPIC_API_KEY": "sk-ant-fake", "ANTHROPIC_BASE_URL": server.anthropic_url}
    return {"OPENAI_API_KEY": "test-key-not-real", "OPENAI_BASE_URL": server.openai_url}


@pytest.mark.parametrize("focused", [False, True], ids=["whole-run", "with---test"])
def test_a_fix_that_breaks_a_sibling_is_never_verified(project, focused):
    before = (project / "rules.py").read_text()
    target = ["--test", FAILING] if focused else []
    with FakeModelServer(functions={"needs_force": OVERFIT}) as server:
        proc = heal_ls(
            "fix", str(project), *target, "--provider", "openai", "--apply", "--json",
            "--no-cache", "--max-attempts", "1", env=provider_env("openai", server),
        )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)["results"][0]
    assert result["status"] == "unverified"
    assert (
        "test_plain_push" in result["guard_tests"][0]
        or "tests/test_rules.py::test_plain_push" in result["guard_tests"]
    )
    assert result["guards"] == 3 and result["applied"] is False
    assert (project / "rules.py").read_text() == before


def test_a_real_fix_says_what_proved_it(project):
    with FakeModelServer(functions={"needs_force": RIGHT}) as server:
        proc = heal_ls(
            "fix", str(project), "--test", FAILING, "--provider", "openai", "--no-cache",
            env=provider_env("openai", server),
        )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (
        "rules.py::needs_force: verified by 1 failing test now passing and 3 guards that run "
        "needs_force()"
    ) in proc.stdout


CHEATS = [
    "def needs_force(command):\n    import unittest\n    raise unittest.SkipTest('later')\n",
    "def needs_force(command):\n    from _pytest.outcomes import exit\n    exit('done')\n",
    "def needs_force(command):\n    import sys\n    sys.modules['_pytest.outcomes'].skip('x')\n",
    "def needs_force(command):\n    import _pytest.reports\n"
    "    _pytest.reports.TestReport.passed = True\n    return True\n",
    "def needs_force(command):\n    class Yes:\n        def __eq__(self, other):\n"
    "            return True\n        def __bool__(self):\n            return True\n"
    "    return Yes()\n",
    "def needs_force(command):\n    import os\n    with open(os.environ['HEAL_LS_REPORT'], 'a') as f:\n"
    "        f.write('{}')\n    os.kill(os.getpid(), 9)\n",
]


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_cheats_are_refused_with_reasons_the_model_sees(project, provider):
    before = (project / "rules.py").read_text()
    with FakeModelServer() as server:
        for cheat in CHEATS:
            server.push(f"```python\n{cheat}```")
        proc = heal_ls(
            "fix", str(project), "--provider", provider, "--apply", "--json", "--no-cache",
            "--max-attempts", str(len(CHEATS)), env=provider_env(provider, server),
        )  # fmt: skip
        prompts = "\n".join(r.prompt_text for r in server.requests[1:])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)["results"][0]
    assert result["status"] in ("failed", "unverified") and result["applied"] is False
    assert (project / "rules.py").read_text() == before
    for label in ("`unittest`", "`_pytest`", "`sys.modules`", "`class definition`"):
        assert label in prompts, label  # each refusal went back to the model


# The verification itself, without the rails: a candidate that gets past them still cannot pass
# by skipping, ending the session, or forging the report.
RUN_CHEATS = {
    "skip": "    import unittest\n    raise unittest.SkipTest('later')\n",
    "pytest-skip": "    import pytest\n    pytest.skip('later')\n",
    "xfail": "    import pytest\n    pytest.xfail('later')\n",
    "exit": "    import pytest\n    pytest.exit('done', returncode=0)\n",
    "interrupt": "    raise KeyboardInterrupt\n",
    "forge-and-die": (
        "    import json, os\n"
        "    with open(os.environ['HEAL_LS_REPORT'], 'a') as out:\n"
        "        for nodeid in ('{f}',):\n"
        "            out.write(json.dumps({{'kind': 'test', 'nodeid': nodeid, 'outcome': 'passed',"
        " 'call': 'passed'}}) + '\\n')\n"
        "        out.write(json.dumps({{'kind': 'session', 'exitstatus': 0, 'tests': 1}}) + '\\n')\n"
        "    os._exit(0)\n"
    ),
}


def _verify(root, module_text, guards=()):
    failure = Failure(id=FAILING, test=FAILING, exc_type="AssertionError", message="")
    return asyncio.run(
        verify_module_text(
            str(root), str(root / "rules.py"), module_text, [failure], list(guards),
            RunOptions(python=sys.executable, test_timeout=10.0, sandbox=True),
        )
    )  # fmt: skip


@pytest.mark.parametrize("cheat", sorted(RUN_CHEATS))
def test_only_a_real_pass_counts(project, cheat):
    body = RUN_CHEATS[cheat].format(f=FAILING)
    outcome = _verify(project, f"def needs_force(command):\n{body}")
    assert not outcome.passed, outcome.summary


def test_a_real_pass_and_a_broken_guard(project):
    assert _verify(project, RIGHT, ["tests/test_rules.py::test_plain_push"]).passed
    broken = _verify(project, OVERFIT, ["tests/test_rules.py::test_plain_push"])
    assert not broken.passed and "regression" in broken.summary
    missing = _verify(project, RIGHT, ["tests/test_rules.py::test_gone"])
    assert not missing.passed
