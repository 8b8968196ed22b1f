"""Helpers for the command-line tests: run `heal-ls` as a subprocess, write small projects."""

from __future__ import annotations

import os
import subprocess
import sys
from textwrap import dedent

from helpers.fakemodel import FakeModelServer

# `fix` without flaky triage (the default re-runs a failing test up to 14 times before a heal,
# ~2 s of CPU): triage is test_fix.py's flaky test's subject, which asks for it (triage=True).
NO_TRIAGE = ("--flaky-runs", "0")


def heal_ls(*args, env=None, timeout=180, triage=False):
    full_env = {**os.environ, **(env or {})}
    if args and args[0] == "fix" and not triage:
        args = (*args, *NO_TRIAGE)
    return subprocess.run(
        [sys.executable, "-m", "heal_ls", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=full_env,
    )


def openai_env(server: FakeModelServer) -> dict:
    return {"OPENAI_BASE_URL": server.openai_url, "OPENAI_API_KEY": "test-key-not-real"}


def heal_check(*args, cwd=None):
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    cmd = [sys.executable, "-m", "heal_ls", "check", *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env, cwd=cwd)


def write(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text))
