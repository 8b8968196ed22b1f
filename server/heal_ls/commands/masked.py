"""The CLI's stdout and stderr mask every known secret, in every form, whatever prints it.

Progress lines, reports and errors quote test names, messages and output that a test (or a
candidate) chose; any of them can carry an environment secret or a `.env` value, reversed or
encoded. One wrapper around the two streams covers every print, the live bar included.
`serve` is left alone: its stdout is the protocol channel, and its log filter masks instead.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Sequence

from heal_ls.redact import hide_known, known_secrets

# typing, for the annotations only: ~5 ms of heal-ls's start before `check` spawns pytest
# (commands/check.py imports nothing that loads it before that)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO


class MaskedStream:
    """A text stream that writes through to `stream` with the known secrets masked."""

    def __init__(self, stream: TextIO, secrets: Sequence[str]):
        self._stream, self._secrets = stream, secrets

    def write(self, text: str) -> int:
        self._stream.write(hide_known(text, self._secrets))
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding...
        return getattr(self._stream, name)


@contextlib.contextmanager
def masked_output(paths: Sequence[str] | str | None) -> Iterator[None]:
    """Inside the block, sys.stdout and sys.stderr mask the environment's secrets and the
    `.env` values of the project named by the command's first path."""
    first = paths[0] if isinstance(paths, list) and paths else paths
    root = first if isinstance(first, str) else "."
    root = root if os.path.isdir(root) else os.path.dirname(os.path.abspath(root))
    secrets = known_secrets(root)
    if not secrets:
        yield
        return
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = MaskedStream(out, secrets), MaskedStream(err, secrets)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
