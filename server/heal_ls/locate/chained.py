"""What the failure's chain (`Failure.chain`: the exceptions it was raised while handling, or
from) says, read by Python's own words.

PEP 479 (3.7+): a `StopIteration` that leaves a generator's frame (an unguarded `next(it)` on
an exhausted iterator) becomes `RuntimeError: generator raised StopIteration` (`async generator
raised StopAsyncIteration`, `coroutine raised StopIteration`), raised `from` it where the
generator was resumed. The reported frames end at the consumer (the test's `list(rows)`, a def
of ours looping over it); the raise itself is the chain's: the StopIteration's frames, from the
generator's on, innermost last. A generator that ends its loop on a StopIteration it catches is
not this: only Python's conversion counts.
"""

from __future__ import annotations

import re

from heal_ls.models import Failure, Frame

STOP_CONVERTED = re.compile(
    r"^(?:async generator|generator|coroutine) raised Stop(?:Async)?Iteration$"
)
_STOPS = {"StopIteration", "StopAsyncIteration"}


def escaped_stop(failure: Failure) -> list[Frame]:
    """The frames of the StopIteration a generator let out, innermost last, when Python turned
    it into the failure's RuntimeError; else []."""
    if failure.exc_type.rsplit(".", 1)[-1] != "RuntimeError":
        return []
    if STOP_CONVERTED.match(failure.message.strip()) is None or not failure.chain:
        return []
    cause = failure.chain[0]  # nearest first: the exception the RuntimeError was raised from
    stopped = cause.exc_type.rsplit(".", 1)[-1] in _STOPS
    return list(cause.frames) if cause.cause and stopped else []
