"""The boundary for running untrusted candidates: a sandbox built from a well-kept tool.

Levels, best first (HEAL_LS_SANDBOX=bwrap|unshare|none forces one, for tests and diagnosis):
- bwrap: bubblewrap (the engine under Flatpak) builds the view;
- unshare: util-linux `unshare` (user + mount + pid + net namespaces) and sandbox_mount.py build
  the same view where bubblewrap is missing;
- none: no isolation; a run is refused unless the user opted in (heal.allowUnisolated /
  --allow-unisolated), and every result then says NOT_ISOLATED.
Inside the bwrap and unshare levels: the whole filesystem is read-only; the system temp dirs,
/run, /home, /root, /dev/shm and the user's home are fresh empty tmpfs, each with a size cap
(HOME keeps the user's path: a tmpfs is mounted there), with the workspace and the interpreter's
paths bound back read-only and unix sockets covered (sandbox_view); only the run's own report
folder is writable, and every other write lands in tmpfs, discarded when the run ends (a warm
run mounts its own afresh: warm_mounts). No network (a private loopback only), a private PID
namespace (every process dies with the run) whose PIDs start at a random number, not 1, rlimits
on memory, CPU, file size and process count, and an allow-listed environment (sandbox_env).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from heal_ls.testing.agent import heal_env
from heal_ls.testing.agent import heal_protocol as wire
from heal_ls.testing.sandbox_env import scrub
from heal_ls.testing.sandbox_policy import SandboxPolicy
from heal_ls.testing.sandbox_view import View, is_under, probe_view, view

try:
    import resource
except ImportError:  # no rlimits where Python has no resource module (Windows)
    resource = None  # type: ignore[assignment]

MEMORY_LIMIT = 2 * 1024**3  # bytes of address space per process
CPU_MARGIN = 5  # CPU seconds allowed beyond the wall-clock timeout
FILE_LIMIT = 1024**3  # bytes per written file
PROCESS_LIMIT = 4096  # processes of this user (the kernel counts them per user)
LEVEL_ENV = "HEAL_LS_SANDBOX"
LEVELS = ("bwrap", "unshare", "none")
NOT_ISOLATED = "verification not isolated on this system"
HOME_FALLBACK = "/tmp/home"  # HOME inside when the user's is unusable (unset, /, in the workspace)
MOUNT_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sandbox_mount.py")
PIDS_ONLY = "--pids-only"  # sandbox_mount.py's argv[1] under bwrap: the view is built already


class NotIsolated(Exception):
    """No sandbox tool works here and the user did not opt in to unisolated runs."""

    def __init__(self) -> None:
        super().__init__(
            f"{NOT_ISOLATED} (install bubblewrap, or allow unisolated runs with "
            "heal.allowUnisolated / --allow-unisolated)"
        )


@dataclass
class Sandbox:
    cmd: list[str]
    env: dict[str, str]
    home: str  # HOME inside the sandbox (an empty tmpfs, or a temp dir at level "none")
    level: str
    prefix: list[str] = field(default_factory=list)  # prepend to any command to run it inside
    scratch: str | None = None  # host temp dir to remove (level "none" only)
    view: View | None = None  # what the run sees (levels bwrap and unshare)

    @property
    def isolated(self) -> bool:
        return self.level != "none"

    @property
    def network_isolated(self) -> bool:
        return self.isolated

    def preexec(self, cpu_seconds: float) -> Callable[[], None]:
        """A preexec_fn applying the rlimits in the child (POSIX only)."""
        return functools.partial(apply_limits, cpu_seconds)

    def cleanup(self) -> None:
        if self.scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)


def apply_limits(cpu_seconds: float) -> None:
    if resource is None:
        return
    for name, value in (
        ("RLIMIT_AS", MEMORY_LIMIT),
        ("RLIMIT_CPU", int(cpu_seconds) + CPU_MARGIN),
        ("RLIMIT_FSIZE", FILE_LIMIT),
        ("RLIMIT_NPROC", PROCESS_LIMIT),
    ):
        limit = getattr(resource, name, None)
        if limit is None:
            continue
        try:
            soft, hard = resource.getrlimit(limit)
            cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(limit, (cap, hard))
        except (ValueError, OSError):
            pass


@functools.lru_cache(maxsize=1)
def level() -> str:
    """The best isolation that really works on this machine (probed once)."""
    forced = os.environ.get(LEVEL_ENV, "").strip().lower()
    if forced in LEVELS:
        return forced
    probe = probe_view()
    true = os.path.realpath(shutil.which("true") or "/bin/true")  # PATH may go through /tmp
    for name in ("bwrap", "unshare"):
        try:
            done = subprocess.run([*_prefix(name, probe), true], capture_output=True, timeout=10)
        except (OSError, subprocess.SubprocessError, FileNotFoundError):
            continue
        if done.returncode == 0:
            return name
    return "none"


def _prefix(name: str, box: View) -> list[str]:
    return _bwrap(box) if name == "bwrap" else _unshare(box)


def _bwrap(box: View) -> list[str]:
    cmd = [shutil.which("bwrap") or "bwrap", "--ro-bind", "/", "/", "--dev", "/dev"]
    cmd += ["--proc", "/proc"]
    for path, size in box.tmpfs():  # /dev/shm too: bwrap's own is an uncapped part of /dev
        cmd += ["--size", str(size), "--tmpfs", path]
    for path in box.keep:
        cmd += ["--ro-bind", path, path]
    for path in box.writable:
        cmd += ["--bind", path, path]
    for host, inner in box.inside.items():
        cmd += ["--bind", host, inner]
    for path in box.covered:
        cmd += ["--ro-bind", "/dev/null", path]
    cmd += [
        "--remount-ro",  # bwrap's /dev is a writable tmpfs of its own
        "/dev",
        "--unshare-user",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
    ]
    cmd += ["--unshare-uts", "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
    return [*cmd, "--chdir", box.cwd, "--", *_launcher(), PIDS_ONLY]


def _unshare(box: View) -> list[str]:
    """unshare(1) for the namespaces; sandbox_mount.py, run by heal-ls's own interpreter, builds
    the same view as bubblewrap's inside them and then execs the command (no shell script)."""
    exe = shutil.which("unshare") or "unshare"
    ns = ["--user", "--map-root-user", "--mount", "--pid", "--net", "--ipc", "--uts"]
    ns += ["--fork", "--kill-child", "--mount-proc"]
    binds = [(p, p, False) for p in box.keep] + [(p, p, True) for p in box.writable]
    binds += [(host, inner, True) for host, inner in box.inside.items()]
    binds += [("/dev/null", path, False) for path in box.covered]
    spec = wire.MountView(hidden=box.tmpfs(), binds=binds, cwd=box.cwd)
    return [exe, *ns, "--", *_launcher(), wire.encode(spec)]


def _launcher() -> list[str]:
    """sandbox_mount.py, run by heal-ls's own interpreter outside the user's site and PYTHON*."""
    return [sys.executable or "python3", "-I", "-S", MOUNT_SCRIPT]


def make_sandbox(
    cmd: list[str],
    env: dict[str, str],
    policy: SandboxPolicy | None = None,
    *,
    root: str,
    writable: Sequence[str] = (),
    inside: dict[str, str] | None = None,
) -> Sandbox:
    """cmd and env to run untrusted code with, at the best level here; raises NotIsolated."""
    policy = policy or SandboxPolicy()
    kind = level()
    clean = sandbox_env(env, policy, kind)
    if kind == "none":
        if not policy.allow_unisolated:
            raise NotIsolated()
        scratch = tempfile.mkdtemp(prefix="heal-ls-home-")
        clean.update(HOME=scratch, TMPDIR=scratch, XDG_CACHE_HOME=os.path.join(scratch, ".cache"))
        return Sandbox(cmd=list(cmd), env=clean, home=scratch, level=kind, scratch=scratch)
    box = view(root, cmd[0], clean, writable, inside, launcher=kind == "bwrap")
    prefix = _prefix(kind, box)
    return Sandbox([*prefix, *cmd], clean, clean["HOME"], kind, prefix=prefix, view=box)


def sandbox_env(
    env: dict[str, str], policy: SandboxPolicy, kind: str | None = None
) -> dict[str, str]:
    """The allow-listed environment of a sandboxed run. HOME keeps the user's path (a run must
    not tell it is sandboxed by a HOME under /tmp); inside, a fresh tmpfs is mounted there."""
    clean = scrub(env, policy.test_env, source=os.environ)
    clean["PIP_NO_INDEX"] = "1"  # belt and braces: no package downloads from a candidate
    if (kind or level()) != "none":
        home = home_inside(env)
        clean.update(HOME=home, TMPDIR="/tmp", XDG_CACHE_HOME=f"{home}/.cache")
        # `pip install --user` packages stay importable: their folder is bound back read-only.
        clean.setdefault("PYTHONUSERBASE", os.path.join(os.path.expanduser("~"), ".local"))
    return clean


def home_inside(env: dict[str, str]) -> str:
    """The run's HOME path inside the sandbox: the user's own, unless it cannot be a tmpfs."""
    home = os.path.realpath(env.get("HOME") or os.path.expanduser("~"))
    root = env.get(heal_env.ROOT) or os.getcwd()
    if home == "/" or is_under(home, os.path.realpath(root)) or not os.path.isabs(home):
        return HOME_FALLBACK
    return home


@contextlib.contextmanager
def sandboxed(
    cmd: list[str],
    env: dict[str, str],
    cpu_seconds: float,
    policy: SandboxPolicy | None,
    *,
    root: str,
    writable: Sequence[str] = (),
) -> Iterator[tuple[list[str], dict[str, str], Callable[[], None] | None]]:
    """(cmd, env, preexec_fn) to spawn with: sandboxed when a policy is given.

    Raises NotIsolated when no sandbox works here and the policy does not allow going on.
    """
    if policy is None:
        yield cmd, env, None
        return
    box = make_sandbox(cmd, env, policy, root=root, writable=writable)
    try:
        yield box.cmd, box.env, box.preexec(cpu_seconds)
    finally:
        box.cleanup()


def describe() -> str:
    """One line for logs and `heal-ls bench --perf`: which level runs candidates here."""
    kind = level()
    return NOT_ISOLATED if kind == "none" else f"candidates run isolated by {kind}"
