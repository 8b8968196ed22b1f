"""Run a Python script (`python FILE`) and turn its traceback into a Failure.

The script runs through the overlay boot (heal_overlay.py) so a candidate can be served for any
file, the script included; a hang is localised by faulthandler's dump before the process ends.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Sequence

from heal_ls.models import Failure, RunResult
from heal_ls.pysource.traceback_text import failure_from_text, parse_faulthandler
from heal_ls.testing.agent import heal_env
from heal_ls.testing.invocation import write_overlay
from heal_ls.testing.options import RunOptions
from heal_ls.testing.prestart import DROPPED_ENV, PLUGIN_DIR
from heal_ls.testing.process import run_process
from heal_ls.testing.sandbox import NotIsolated, sandboxed

BOOT = os.path.join(PLUGIN_DIR, heal_env.OVERLAY_BOOT)
FAULT_TIMEOUT = re.compile(r"^Timeout \(\d+:\d\d:\d\d(?:\.\d+)?\)!$", re.MULTILINE)
KILL_MARGIN = 3.0  # seconds after faulthandler's own timeout before we kill the group


async def run_script(
    root: str | os.PathLike[str],
    script: str | os.PathLike[str],
    options: RunOptions | None = None,
    *,
    args: Sequence[str] = (),
) -> RunResult:
    """`python script *args` in `root` with the options' interpreter, overlay and sandbox, for
    at most their run_timeout seconds (the pytest-only options do not apply)."""
    options = options or RunOptions()
    timeout = options.run_timeout
    root = os.path.abspath(str(root))
    script = os.path.abspath(os.path.join(root, str(script)))
    with tempfile.TemporaryDirectory(prefix="heal-ls-script-") as workdir:
        cmd = [options.python or sys.executable, BOOT, script, *args]
        env = _script_env(workdir, options.overlay, timeout)
        box = sandboxed(cmd, env, timeout, options.policy, root=root, writable=[workdir])
        try:
            with box as (cmd, env, preexec):
                outcome = await run_process(
                    cmd, env=env, cwd=root, timeout=timeout + KILL_MARGIN, preexec_fn=preexec
                )
        except NotIsolated as exc:
            return RunResult(root=root, error=str(exc))
        except OSError as exc:
            return RunResult(root=root, error=f"cannot run {cmd[0]}: {exc.strerror or exc}")
    return script_result(root, script, outcome.returncode, outcome.output, outcome.seconds)


def _script_env(workdir: str, overlay: dict[str, str] | None, timeout: float) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHON_COLORS"] = "0"
    env["PYTHONFAULTHANDLER"] = "1"  # a segfault still prints where it happened
    env[heal_env.SCRIPT_TIMEOUT] = f"{timeout:g}"
    if overlay:
        env[heal_env.OVERLAY] = write_overlay(workdir, overlay)
    return env


def script_result(
    root: str, script: str, returncode: int, output: str, seconds: float
) -> RunResult:
    """A RunResult with one Failure when the script crashed, hung or exited non-zero."""
    result = RunResult(root=root, seconds=round(seconds, 3))
    if returncode == 0:
        result.passed = 1
        return result
    failure = _script_failure(root, returncode, output)
    rel = os.path.relpath(script, root).replace(os.sep, "/")
    failure.id, failure.script, failure.stdout = f"script:{rel}", script, output[-8000:]
    failure.duration = result.seconds
    result.failed = 1
    result.timed_out = failure.timed_out
    result.failures.append(failure)
    return result


def _script_failure(root: str, returncode: int, output: str) -> Failure:
    if FAULT_TIMEOUT.search(output) or returncode == -9:
        frames = parse_faulthandler(output)
        message = "the script did not finish in time"
        return Failure(id="", exc_type="Timeout", message=message, frames=frames, timed_out=True)
    failure = failure_from_text(output, root)
    if failure is not None:
        return failure
    lines = [line for line in output.strip().splitlines() if line.strip()]
    message = lines[-1] if lines else f"exit code {returncode}"
    frames = parse_faulthandler(output)  # a crash (segfault) dumped by faulthandler, if any
    return Failure(id="", exc_type="ExitCode", message=message, frames=frames)
