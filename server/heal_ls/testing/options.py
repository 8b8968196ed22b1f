"""How heal-ls runs the user's tests, chosen once and handed down unchanged.

The CLI's flags, the editor's settings or a heal's config become one RunOptions; the
run-and-locate pipeline (diagnose.py), its contrast run, guard discovery (heal/guards.py) and
the traced coverage run pass it on as it is, instead of re-listing each option at every step.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any


@dataclass(frozen=True)
class RunOptions:
    python: str | None = None  # the interpreter that runs the tests (None: heal-ls's own)
    pytest_args: tuple[str, ...] = ()  # added to every pytest command line
    test_timeout: float = 10.0  # seconds per test (0: no limit)
    run_timeout: float = 300.0  # seconds for the whole run (or a script)
    overlay: dict[str, str] | None = field(default=None, hash=False)  # unsaved texts by path
    warm: Any = field(default=None, hash=False, compare=False)  # a WarmRunner, or None: spawn
    own_cache: bool = False  # a pytest cache of the run's own: the user's lastfailed untouched

    def __post_init__(self) -> None:
        object.__setattr__(self, "pytest_args", tuple(self.pytest_args))

    def pytest_kwargs(self) -> dict[str, Any]:
        """The keywords of testing/runner.run_pytest these options set (each field is one)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}
