"""Opening the files a run leaves for heal-ls (report, stuck dump, output, learned lists).

Written inside the run, a file heal-ls keeps open while tests run (the report, the stuck dump)
sits on a descriptor above 9 (`open_kept`): 3-9 are the ones a shell script redirects and a
program is handed by number (argcomplete writes completions to 8 and debug lines to 9, and
closes them when done), so code under test that writes to or closes one of those cannot write
into heal-ls's report or end it.

The run may be a candidate in the sandbox, and the exchange folder is writable from inside. A
file there can be swapped for a symlink to a private file (read outside the sandbox, it would be
quoted to the model and printed), for a FIFO (an open() that never returns), for a directory or
for a hard link. So an exchange file is opened without following a symlink, without blocking,
and only when it is a regular file with one link; reads are bounded by the caller's limit.
Stdlib only: the warm server uses it too.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO, TextIO

FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


FIRST_UNNAMED_FD = 10  # the lowest descriptor no shell redirection or fd-passing convention names


def open_kept(path: str) -> TextIO:
    """`path` opened for writing (UTF-8 text, truncated) on a descriptor >= FIRST_UNNAMED_FD."""
    return open(path, "w", encoding="utf-8", opener=_above_named)  # noqa: SIM115


def _above_named(path: str, flags: int) -> int:
    fd = os.open(path, flags, 0o666)
    try:
        import fcntl  # lazy: POSIX only (Windows hands no descriptors by number)
    except ImportError:
        return fd
    try:
        return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, FIRST_UNNAMED_FD)
    finally:
        os.close(fd)


def open_exchange(path: str) -> BinaryIO:
    """The file at `path` opened for reading, or OSError when it is not a plain file of its own
    (a symlink raises ELOOP; a FIFO, socket, device, directory or hard link raises EPERM)."""
    fd = os.open(path, FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            raise OSError(errno.EPERM, "not a plain file of the run's own", path)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_exchange(path: str, limit: int) -> bytes:
    """At most `limit` bytes from the start of the exchange file (OSError as open_exchange)."""
    with open_exchange(path) as handle:
        return handle.read(limit)
