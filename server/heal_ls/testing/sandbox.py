"""Limits for running untrusted candidates: a temp HOME, memory/CPU rlimits, no network.

No network uses `unshare` (a new user + network namespace) when this machine allows it; where
it does not, the run goes ahead with the other limits and `Sandbox.network_isolated` says so.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

MEMORY_LIMIT = 2 * 1024**3  # bytes of address space per process
CPU_MARGIN = 5  # CPU seconds allowed beyond the wall-clock timeout


@dataclass
class Sandbox:
    cmd: list[str]
    env: dict[str, str]
    home: str
    network_isolated: bool

    def preexec(self, cpu_seconds: float):
        """A preexec_fn applying the rlimits in the child (POSIX only)."""
        try:
            import resource
        except ImportError:
            return None

        def apply() -> None:
            for limit, value in (
                (resource.RLIMIT_AS, MEMORY_LIMIT),
                (resource.RLIMIT_CPU, int(cpu_seconds) + CPU_MARGIN),
            ):
                try:
                    soft, hard = resource.getrlimit(limit)
                    cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
                    resource.setrlimit(limit, (cap, hard))
                except (ValueError, OSError):
                    pass

        return apply

    def cleanup(self) -> None:
        shutil.rmtree(self.home, ignore_errors=True)


@functools.lru_cache(maxsize=1)
def unshare_prefix() -> tuple[str, ...]:
    """The command prefix that drops the network here, or () if none works."""
    exe = shutil.which("unshare")
    if not exe:
        return ()
    for flags in (("--map-current-user", "--net"), ("-rn",)):
        try:
            done = subprocess.run([exe, *flags, "true"], capture_output=True, timeout=5)
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0:
            return (exe, *flags)
    return ()


def make_sandbox(cmd: list[str], env: dict[str, str]) -> Sandbox:
    home = tempfile.mkdtemp(prefix="heal-ls-home-")
    env = dict(env, HOME=home, TMPDIR=home, XDG_CACHE_HOME=os.path.join(home, ".cache"))
    env["PIP_NO_INDEX"] = "1"  # belt and braces: no package downloads from a candidate
    prefix = unshare_prefix()
    return Sandbox(cmd=[*prefix, *cmd], env=env, home=home, network_isolated=bool(prefix))


@contextlib.contextmanager
def sandboxed(cmd: list[str], env: dict[str, str], cpu_seconds: float, enabled: bool):
    """(cmd, env, preexec_fn) to spawn with: sandboxed when enabled, its HOME removed after."""
    if not enabled:
        yield cmd, env, None
        return
    box = make_sandbox(cmd, env)
    try:
        yield box.cmd, box.env, box.preexec(cpu_seconds)
    finally:
        box.cleanup()
