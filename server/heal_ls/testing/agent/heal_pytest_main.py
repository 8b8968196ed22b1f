"""`python -m heal_pytest_main ARGS`: `python -m pytest ARGS`, then the process ends at once.

Every pytest run heal-ls spawns starts here. Once pytest has returned, the run's report is
written and closed; what a normal exit does next (free every object, tear down the project's
modules one by one) nobody reads, and it cost ~0.15 s of a networkx run, a tenth of plain pytest
of one test file. So, when no thread is left that a normal exit would wait for, the output is
flushed, the atexit handlers run as at any exit (pytest-cov's coverage data is saved there), and
os._exit ends the process with pytest's exit code. A thread a test left running keeps the
normal exit, which waits for it as `python -m pytest` does. An exception out of pytest takes the
normal path too (its traceback, its exit code).

`python -m heal_pytest_main --heal-wait` (heal-ls's launcher started ahead of its run,
testing/prestart.py): pytest is imported while heal-ls still builds the run, which then comes
on stdin as one JSON object (argv, env, cwd) and is taken as if it had been the command line,
environment and folder the process started with; stdin is /dev/null from then on, as for any
run heal-ls spawns. End-of-file without a run: heal-ls did not need it, exit at once.

Standard library and pytest only: this runs in the user's interpreter (heal_protocol.py).
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import threading

import heal_env
import pytest


def run() -> int:
    # sys.argv[0] as `python -m pytest` sets it: projects test it to know they run under pytest
    sys.argv[0] = os.path.join(os.path.dirname(pytest.__file__), "__main__.py")
    console_main = getattr(pytest, "console_main", None)  # pytest >= 5.3
    return int(console_main() if console_main is not None else pytest.main())


def take_run() -> None:
    """--heal-wait: read the run from stdin and take it on (see the module docstring)."""
    # lazy: the wire's records (the plugin's report lines) load while heal-ls still builds the
    # run, as pytest does, not after it came (heal_env.py holds what the launcher itself reads)
    import heal_protocol  # noqa: F401

    chunks = []
    while True:
        chunk = os.read(0, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    if not chunks:
        os._exit(0)
    sent = json.loads(b"".join(chunks).decode("ascii"))
    os.environ.clear()
    os.environ.update(sent["env"])
    os.chdir(sent["cwd"])
    sys.argv[1:] = sent["argv"]
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)


def waits_for_a_thread() -> bool:
    main = threading.main_thread()
    return any(t is not main and not t.daemon for t in threading.enumerate())


def end(code: int) -> None:
    if waits_for_a_thread():
        sys.exit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # a reader gone, a stream a test closed: exit normally
        sys.exit(code)
    atexit._run_exitfuncs()
    os._exit(code)


if __name__ == "__main__":
    if sys.argv[1:] == [heal_env.WAIT_OPTION]:
        take_run()
    if heal_env.PLUGIN_NAME in sys.argv[1:]:
        import heal_importers

        heal_importers.install_early()
    end(run())
