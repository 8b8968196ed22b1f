"""Faults that must end in one clear line and lose nothing: interrupted runs, unknown test ids,
symlinked modules, relative interpreters, caps and timeouts (fake model). One real `heal-ls`
process per path (check, fix, fix --apply); the per-case variations run the same engine in the
test's process (diagnose, heal_first_target: real pytest runs, candidates in the real sandbox)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from textwrap import dedent

import pytest
from heal_ls.commands.apply import write_atomic
from heal_ls.diagnose import diagnose
from heal_ls.heal.config import HealConfig
from helpers.fakemodel import FakeModelServer
from helpers.heal import heal_first_target

pytestmark = pytest.mark.e2e


def heal_ls(*args, env=None, cwd=None, timeout=180):
    full_env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", **(env or {})}
    cmd = [sys.executable, "-m", "heal_ls", *map(str, args)]
    return subprocess.run(
        cmd, capture_output=True, text=True, timeout=timeout, env=full_env, cwd=cwd
    )


def openai_env(server: FakeModelServer) -> dict:
    return {"OPENAI_BASE_URL": server.openai_url, "OPENAI_API_KEY": "test-key-not-real"}


def use_fake_model(server: FakeModelServer, monkeypatch) -> None:
    for variable, value in openai_env(server).items():
        monkeypatch.setenv(variable, value)


def write(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text))


INTERRUPTS = {
    "keyboard_interrupt": "raise KeyboardInterrupt",
    # Ctrl-C as a terminal delivers it; a suite started in the background (`cmd &`) inherits an
    # ignored SIGINT, so the test puts Python's own handler back first.
    "sigint": "import os, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "os.kill(os.getpid(), signal.SIGINT)",
    "pytest_exit": "import pytest; pytest.exit('stop here')",
}


def write_interrupted(root, kind: str) -> None:
    body = INTERRUPTS[kind]
    write(
        root,
        {
            "pytest.ini": "[pytest]\n",
            "tests/test_a.py": f"def test_ok():\n    pass\n\ndef test_stop():\n    {body}\n",
        },
    )


def test_check_never_passes_an_interrupted_run(tmp_path):
    write_interrupted(tmp_path, "sigint")
    proc = heal_ls("check", tmp_path, "--json")
    assert proc.returncode == 2, proc.stdout + proc.stderr  # plain pytest exits 2 as well
    assert "tests/test_a.py::test_stop" in proc.stderr
    assert json.loads(proc.stdout)["interrupted"]


@pytest.mark.parametrize("kind", sorted(set(INTERRUPTS) - {"sigint"}))
def test_every_interrupt_makes_the_run_interrupted(kind, tmp_path):
    """What check reads (its exit 2 and message come from `interrupted`, as above)."""
    write_interrupted(tmp_path, kind)
    run, _ = asyncio.run(diagnose(tmp_path))
    assert run.interrupted and "tests/test_a.py::test_stop" in run.interrupted, run


UNKNOWN = {"check": "tests/test_nope.py::test_x", "fix": "tests/test_a.py::test_nope"}


@pytest.mark.parametrize("command", sorted(UNKNOWN))
def test_an_unknown_test_id_is_a_usage_error(command, tmp_path):
    write(tmp_path, {"pytest.ini": "[pytest]\n", "tests/test_a.py": "def test_ok():\n    pass\n"})
    extra = ["--provider", "local"] if command == "fix" else []
    proc = heal_ls(command, tmp_path, "--test", UNKNOWN[command], *extra)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "usage error" in proc.stderr and "not found" in proc.stderr  # pytest's own reason


@pytest.mark.parametrize("nodeid", sorted(UNKNOWN.values()))
def test_either_unknown_test_id_is_the_runs_error(nodeid, tmp_path):
    """The error check and fix print (both call diagnose with the ids), for either id."""
    write(tmp_path, {"pytest.ini": "[pytest]\n", "tests/test_a.py": "def test_ok():\n    pass\n"})
    run, _ = asyncio.run(diagnose(tmp_path, tests=[nodeid]))
    assert run.error and "usage error" in run.error and "not found" in run.error, run


CANDIDATE_INTERRUPTS = {
    "keyboard_interrupt": "    raise KeyboardInterrupt\n",
    "sigint": "    import os, signal\n    os.kill(os.getpid(), signal.SIGINT)\n",
}


def interrupting(kind: str) -> dict[str, str]:
    return {"Inventory.remove": "def remove(self, name, count=1):\n" + CANDIDATE_INTERRUPTS[kind]}


def test_a_candidate_that_interrupts_the_run_is_never_verified(example_copy):
    root = example_copy("inventory")
    target = root / "shop" / "inventory.py"
    before = target.read_bytes()
    with FakeModelServer(functions=interrupting("keyboard_interrupt")) as server:
        proc = heal_ls(
            "fix", root, "--provider", "openai", "--apply", "--json", "--no-cache",
            "--max-attempts", "1", env=openai_env(server),
        )  # fmt: skip
    result = json.loads(proc.stdout)["results"][0]
    assert result["status"] != "verified", result
    assert proc.returncode == 1
    assert target.read_bytes() == before


def test_a_candidate_that_sends_sigint_is_never_verified(example_copy, monkeypatch):
    root = example_copy("inventory")
    with FakeModelServer(functions=interrupting("sigint")) as server:
        use_fake_model(server, monkeypatch)
        config = HealConfig(provider="openai", use_cache=False, max_attempts=1)
        result = heal_first_target(root, config)
    assert result.status != "verified" and result.new_source is None, result
    assert len(server.requests) == 1  # the candidate was asked for, run, and refused


def symlinked_project(tmp_path, where: str):
    """proj/pkg/calc.py, a link to a buggy real_calc.py inside or outside proj, in git."""
    root = tmp_path / "proj"
    real = (root / "impl" if where == "inside" else tmp_path / "elsewhere") / "real_calc.py"
    write(
        tmp_path,
        {
            f"{real.relative_to(tmp_path)}": "def add(a, b):\n    return a - b\n",
            "proj/pytest.ini": "[pytest]\n",
            "proj/pkg/__init__.py": "",
            "proj/tests/test_calc.py": "from pkg.calc import add\n\n"
            "def test_add():\n    assert add(2, 3) == 5\n\n"
            "def test_add_zeros():\n    assert add(0, 0) == 0\n",  # the guard of add()
        },
    )
    link = root / "pkg" / "calc.py"
    link.symlink_to(os.path.relpath(real, link.parent))
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "start"]):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root)
    return root, link, real


FIXED_ADD = "def add(a, b):\n    return a + b\n"


def test_a_symlinked_module_is_healed_and_written_through_the_link(tmp_path):
    root, link, real = symlinked_project(tmp_path, "outside")
    proc = heal_ls("fix", root, "--provider", "local", "--apply", "--json", "--no-cache")
    result = json.loads(proc.stdout)["results"][0]
    assert result["status"] == "verified" and result["applied"], proc.stdout + proc.stderr
    assert result["guard_tests"] == ["tests/test_calc.py::test_add_zeros"]
    assert proc.returncode == 0
    assert link.is_symlink() and real.read_text() == FIXED_ADD
    assert heal_ls("check", root).returncode == 0


def test_a_symlinked_module_inside_the_project_is_healed_through_the_link(tmp_path):
    root, link, real = symlinked_project(tmp_path, "inside")
    result = heal_first_target(root, HealConfig(provider="local", use_cache=False))
    assert result.status == "verified" and result.new_source == FIXED_ADD, result
    assert result.guards == ["tests/test_calc.py::test_add_zeros"]
    assert result.suspect is not None
    write_atomic(result.suspect.path, result.new_source)  # what fix --apply writes
    assert link.is_symlink() and real.read_text() == FIXED_ADD
    run, _ = asyncio.run(diagnose(root))
    assert run.passed == 2 and not run.failures


def test_a_relative_python_is_taken_from_the_current_folder(tmp_path):
    write(
        tmp_path,
        {"proj/pytest.ini": "[pytest]\n", "proj/tests/test_a.py": "def test_ok():\n    pass\n"},
    )
    venv = tmp_path / "env" / "bin"
    venv.mkdir(parents=True)
    # a wrapper, not a symlink: a symlinked venv python finds no pyvenv.cfg and runs as its
    # base interpreter, which has pytest on some machines and not on others
    (venv / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (venv / "python").chmod(0o755)
    proc = heal_ls("check", "proj", "--python", "env/bin/python", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "1 passed" in proc.stderr


def test_huge_test_output_is_cut_with_a_marker(tmp_path):
    from heal_ls.testing.invocation import build_pytest_invocation
    from heal_ls.testing.runner import run_pytest

    write(
        tmp_path,
        {
            "pytest.ini": "[pytest]\n",
            "tests/test_loud.py": "def test_loud():\n"
            "    for _ in range(20_000):\n        print('x' * 999)\n    assert False\n",
        },
    )
    run = asyncio.run(run_pytest(tmp_path))
    (failure,) = run.failures
    assert "characters cut" in failure.stdout and len(failure.stdout) < 10_000
    inv = build_pytest_invocation(tmp_path)
    try:  # what pytest itself prints (a warm run writes it to a file) is capped as well
        out = subprocess.run(inv.command, env=inv.env, cwd=inv.cwd, capture_output=True).stdout
    finally:
        inv.cleanup()
    assert b"characters cut" in out and len(out) < 500_000


def test_a_python_the_warm_server_cannot_serve_is_warned_about_once(tmp_path, caplog):
    import logging

    from heal_ls.testing.runner import RunOptions, run_pytest
    from heal_ls.testing.warm.client import WarmRunner

    write(tmp_path, {"pytest.ini": "[pytest]\n", "tests/test_a.py": "def test_ok():\n    pass\n"})
    python = tmp_path / "python"  # a warm server dies at start (as on 3.8 before); cold runs work
    python.write_text(
        f'#!/bin/sh\ncase "$1" in *warm_server.py) exit 3;; esac\nexec {sys.executable} "$@"\n'
    )
    python.chmod(0o755)
    runner = WarmRunner(str(python), str(tmp_path))

    async def runs():
        return [
            await run_pytest(tmp_path, RunOptions(python=str(python), warm=runner))
            for _ in range(2)
        ]

    with caplog.at_level(logging.DEBUG, logger="heal_ls.testing.warm.client"):
        results = asyncio.run(runs())
    runner.close()
    assert [r.passed for r in results] == [1, 1] and runner.cold_runs == 2
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "running pytest cold" in warnings[0].getMessage()


# The model's faults below are the engine's (--timeout is HealConfig.request_timeout through
# heal/config.SOURCES); the CLI's own output of a model fault is the credentials row's.
def test_fix_timeout_ends_a_silent_model_quickly(example_copy, monkeypatch):
    import time

    root = example_copy("inventory")
    with FakeModelServer() as server:
        for _ in range(3):
            server.push("def remove(self, name, count=1):\n    pass\n", first_byte_delay=60)
        use_fake_model(server, monkeypatch)
        started = time.monotonic()
        config = HealConfig(provider="openai", use_cache=False, max_attempts=1, request_timeout=2)
        result = heal_first_target(root, config)
    assert result.status == "failed" and "2s" in result.reason, result
    assert time.monotonic() - started < 60  # not 3 x 120 s


def test_fix_refuses_a_huge_answer_in_one_line(example_copy, monkeypatch):
    root = example_copy("inventory")
    with FakeModelServer() as server:
        server.push("x" * 1_000_000)
        use_fake_model(server, monkeypatch)
        config = HealConfig(provider="openai", use_cache=False, max_attempts=1)
        result = heal_first_target(root, config)
    assert result.status == "failed", result
    assert "larger than 100000 characters; stopped reading it" in result.reason


def test_fix_never_prints_credentials_from_the_base_url(example_copy):
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    root = example_copy("inventory")
    url = f"http://alice:hunter2secret@127.0.0.1:{port}/v1"
    proc = heal_ls(
        "fix", root, "--provider", "openai", "--base-url", url, "--no-cache", "--max-attempts", "1",
        env={"OPENAI_API_KEY": "test-key-not-real"},
    )  # fmt: skip
    assert proc.returncode == 1
    assert "127.0.0.1" in proc.stdout + proc.stderr
    assert (
        "hunter2secret" not in proc.stdout + proc.stderr
        and "alice" not in proc.stdout + proc.stderr
    )
