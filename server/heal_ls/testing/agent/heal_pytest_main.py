"""`python -m heal_pytest_main ARGS`: `python -m pytest ARGS`, then the process ends at once.

Every pytest run heal-ls spawns starts here. Once pytest has returned, the run's report is
written and closed; what a normal exit does next (free every object, tear down the project's
modules one by one) nobody reads, and it cost ~0.15 s of a networkx run, a tenth of plain pytest
of one test file. So, when no thread is left that a normal exit would wait for, the output is
flushed, the atexit handlers run as at any exit (pytest-cov's coverage data is saved there), and
os._exit ends the process with pytest's exit code. A thread a test left running keeps the
normal exit, which waits for it as `python -m pytest` does. An exception out of pytest takes the
normal path too (its traceback, its exit code).

Standard library and pytest only: this runs in the user's interpreter (heal_protocol.py).
"""

from __future__ import annotations

import atexit
import os
import sys
import threading

import pytest


def run() -> int:
    # sys.argv[0] as `python -m pytest` sets it: projects test it to know they run under pytest
    sys.argv[0] = os.path.join(os.path.dirname(pytest.__file__), "__main__.py")
    console_main = getattr(pytest, "console_main", None)  # pytest >= 5.3
    return int(console_main() if console_main is not None else pytest.main())


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
    end(run())
