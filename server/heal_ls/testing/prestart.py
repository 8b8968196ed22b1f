"""The pytest launcher started before heal-ls knows its run: Python and pytest load meanwhile.

`heal-ls check` spent ~0.1 s of CPU (networkx, idle) importing itself and asking the impact map
before it spawned its first pytest (testing/head_start.py), and that pytest then spent about as
long starting Python and importing pytest before it read its arguments. So check starts the
launcher (`python -m heal_pytest_main --heal-wait`, agent/heal_pytest_main.py) as soon as it
knows the interpreter and the project root, with the environment every run of heal-ls starts
with (`launch_env`); the launcher imports pytest and waits for its run on stdin. Once the
invocation is built, `take` sends it (argv, environment, folder) when what Python reads at
start-up is what the invocation asks for: the same interpreter, folder and environment but the
run's own variables (RUN_VARIABLES, read by the plugin when pytest starts). Otherwise the
launcher is killed and the run spawned as before. A launcher never taken reads end-of-file and
exits without running anything (`close` kills it first).

Imports little (not the invocation, the options, heal-ls's config or the wire's records: only
heal_env's names): it runs before them.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess

from heal_ls.testing.agent import heal_env

PLUGIN_DIR = os.path.join(os.path.dirname(os.path.realpath(__file__)), "agent")
# Our own pytest's per-test variables must not leak into the child run.
DROPPED_ENV = (
    "PYTEST_CURRENT_TEST",
    "PYTEST_VERSION",
    heal_env.REPORT,
    heal_env.OVERLAY,
    heal_env.SEAL,
    heal_env.SERIAL,
    heal_env.SELECT,
    heal_env.BLOCKS,
    heal_env.COV_REPORTS,
    # another run's: heal-ls started inside a recorded or overlaid test must not hand its runs (a
    # candidate's among them) that test's child folder or overlay; plugin_env sets the cache when it traces
    heal_env.CHILD_HITS,
    heal_env.CHILD_OVERLAY,
    heal_env.HITS_CACHE,
)
# coverage.py's data file: pytest-cov (`--cov` in addopts) writes it when the session ends
COVERAGE_FILE = "COVERAGE_FILE"
# What build_pytest_invocation sets for one run: read once pytest runs (the plugin, pytest-cov),
# never while Python starts, so a launcher started without them takes them with its run.
RUN_VARIABLES = frozenset(
    (
        heal_env.REPORT,
        heal_env.ROOT,
        heal_env.TRACE,
        heal_env.TEST_TIMEOUT,
        heal_env.HITS_CACHE,
        heal_env.BLOCKS,
        heal_env.SERIAL,
        heal_env.SEAL,
        heal_env.SELECT,
        heal_env.OVERLAY,
        heal_env.COV_REPORTS,
        COVERAGE_FILE,
    )
)


def interpreter(value: str) -> str:
    """A --python value as typed: a path is taken from the current folder (the tests run in the
    project root, where a relative path would mean something else); a bare name stays a name,
    looked up on PATH."""
    return os.path.abspath(value) if os.sep in value or "/" in value else value


def launch_env() -> dict[str, str]:
    """The environment every pytest heal-ls spawns starts with (its run's variables aside):
    this process's, without our own pytest's per-test variables, the agent folder first on
    PYTHONPATH (the plugin, the launcher, sitecustomize.py), unbuffered and colourless."""
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PLUGIN_DIR, env.get("PYTHONPATH")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHON_COLORS"] = "0"
    return env


def _start_up(env: dict[str, str]) -> dict[str, str]:
    """What of `env` Python may read while it starts: all but the run's variables."""
    return {k: v for k, v in env.items() if k not in RUN_VARIABLES}


class PreStart:
    """One launcher waiting for its run (see the module docstring)."""

    def __init__(
        self, python: str, root: str, env: dict[str, str], process: subprocess.Popen[bytes]
    ):
        self.python = python
        self.root = root
        self.env = env  # the launcher's environment
        self.process: subprocess.Popen[bytes] | None = process

    @classmethod
    def spawn(cls, python: str, root: str) -> PreStart | None:
        """The launcher for a run of `python` in `root` (None: it could not be started)."""
        root, env = os.path.abspath(root), _start_up(launch_env())
        try:
            process = subprocess.Popen(
                [python, "-m", heal_env.MAIN_MODULE, heal_env.WAIT_OPTION],
                env=env,
                cwd=root,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, as run_process spawns
            )
        except OSError:  # the run's own spawn reports it
            return None
        return cls(python, root, env, process)

    def fits(self, command: list[str], env: dict[str, str], cwd: str) -> bool:
        """Would a run of `command` with `env` in `cwd` (an invocation's) start as this
        launcher did: the launcher, the interpreter, the folder and the start-up environment?"""
        return (
            command[:3] == [self.python, "-m", heal_env.MAIN_MODULE]
            and os.path.abspath(cwd) == self.root
            and _start_up(env) == self.env
        )

    def take(
        self, command: list[str], env: dict[str, str], cwd: str
    ) -> subprocess.Popen[bytes] | None:
        """The launcher running `command` with `env` in `cwd`, once, when it fits and still
        waits; None (the launcher killed) otherwise: spawn the run as usual."""
        process, self.process = self.process, None
        if process is None:
            return None
        if process.poll() is None and self.fits(command, env, cwd):
            run = {"argv": command[3:], "env": env, "cwd": cwd}
            try:
                assert process.stdin is not None
                process.stdin.write(json.dumps(run).encode("ascii"))
                process.stdin.close()
                return process
            except OSError:  # it died meanwhile (no pytest there?): the usual spawn says why
                pass
        _kill(process)
        return None

    def close(self) -> None:
        """Kill the launcher if nobody took it."""
        if self.process is not None:
            _kill(self.process)
            self.process = None


def _kill(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):  # its whole group, as run_process kills one
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    for stream in (process.stdin, process.stdout):
        with contextlib.suppress(OSError):
            if stream is not None:
                stream.close()
