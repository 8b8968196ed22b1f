"""Both sandbox levels as test parameters, whether or not this machine has bubblewrap.

`bwrap` is skipped, with the reason, where bubblewrap is not installed or cannot start here;
`unshare` (the fallback every machine without bubblewrap gets) is skipped only where the kernel
refuses unprivileged user namespaces. Both probes run the bare tool, never heal-ls's own sandbox,
so a broken sandbox is a failure, not a skip.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess

import pytest
from heal_ls.testing import sandbox


@functools.cache
def why_not(name: str) -> str | None:
    """None when the bare tool runs here, else why it cannot."""
    exe = shutil.which(name)
    if exe is None:
        return f"{name} is not installed on this machine (not on PATH)"
    if name == "bwrap":
        cmd = [exe, "--ro-bind", "/", "/", "--unshare-user", "true"]
    else:
        cmd = [exe, "--user", "--map-root-user", "--mount", "true"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{name} cannot start here: {exc}"
    if done.returncode != 0:
        return f"{name} cannot make namespaces here: {done.stderr.strip()[:200]}"
    return None


LEVELS = [
    pytest.param(name, marks=pytest.mark.skipif(bool(why_not(name)), reason=why_not(name) or ""))
    for name in ("bwrap", "unshare")
]


@contextlib.contextmanager
def forced_level(name: str):
    """This process's sandbox runs at `name` (HEAL_LS_SANDBOX) until the block ends."""
    old = os.environ.get(sandbox.LEVEL_ENV)
    os.environ[sandbox.LEVEL_ENV] = name
    sandbox.level.cache_clear()
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(sandbox.LEVEL_ENV, None)
        else:
            os.environ[sandbox.LEVEL_ENV] = old
        sandbox.level.cache_clear()


@pytest.fixture(params=LEVELS)
def sandbox_level(request):
    """Runs the test once per sandbox level, with this process's sandbox forced to it."""
    with forced_level(request.param):
        yield request.param
