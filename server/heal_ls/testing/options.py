"""How heal-ls runs the user's tests, chosen once and handed down unchanged.

The CLI's flags, the editor's settings or a heal's config become one RunOptions; the
run-and-locate pipeline (diagnose.py), its contrast run, guard discovery (heal/guards.py), the
traced coverage run, a candidate's verification and its confirmation pass it on as it is (a step
that needs one option otherwise says so with `dataclasses.replace`), instead of re-listing each
option at every step. `testing/runner.run_pytest(root, options, nodeids=...)` takes it whole.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from heal_ls.testing.agent.heal_env import EXCLUDE_OPTION
from heal_ls.testing.sandbox_policy import SandboxPolicy, as_policy

# Flaky triage's size (testing/flaky.py), here because the CLI's defaults read it before
# check's first run is spawned, and flaky.py imports the runner (tests/e2e/test_check_one_run).
PASS_RATE = 0.2  # the flakiest test triage must catch: one that passes one run in five
CONFIDENCE = 0.95
FULL_RERUNS = math.ceil(math.log(1 - CONFIDENCE) / math.log(1 - PASS_RATE))  # 14


@dataclass(frozen=True)
class RunOptions:
    python: str | None = None  # the interpreter that runs the tests (None: heal-ls's own)
    pytest_args: tuple[str, ...] = ()  # added to every pytest command line
    test_timeout: float = 10.0  # seconds per test (0: no limit)
    run_timeout: float = 300.0  # seconds for the whole run (or a script)
    overlay: dict[str, str] | None = field(default=None, hash=False)  # unsaved texts by path
    warm: Any = field(default=None, hash=False, compare=False)  # a WarmRunner, or None: spawn
    # the user's own run (heal-ls check, standing in for pytest) keeps pytest's cache (lastfailed)
    # up to date; every other run has a cache of its own: the user's lastfailed is theirs
    user_cache: bool = False
    trace: bool = True  # record which workspace functions each test ran (the plugin's hits)
    blocks: bool = False  # with trace: which blocks of them ran too (ranking evidence: diagnose)
    # untrusted code (candidates) runs in the sandbox: True or a SandboxPolicy (kept as a policy)
    sandbox: SandboxPolicy | bool | None = None
    spread: bool = False  # test ids (files, folders) run under pytest-xdist too (`heal-ls index`)

    def __post_init__(self) -> None:
        object.__setattr__(self, "pytest_args", tuple(self.pytest_args))
        object.__setattr__(self, "sandbox", as_policy(self.sandbox))

    def for_evidence(self) -> RunOptions:
        """These options for a run whose tests are the ranking's evidence (diagnose's): with
        trace, which blocks of the functions ran too, test by test."""
        return replace(self, blocks=self.trace)

    def excluding(self, nodeids: Sequence[str]) -> RunOptions:
        """These options with those tests deselected exactly (pytest's --deselect would drop
        every test whose id begins with one of them)."""
        excluded = (arg for nodeid in nodeids for arg in (EXCLUDE_OPTION, nodeid))
        return replace(self, pytest_args=(*self.pytest_args, *excluded))

    @property
    def policy(self) -> SandboxPolicy | None:
        """The sandbox the run goes into, None for none."""
        return self.sandbox if isinstance(self.sandbox, SandboxPolicy) else None
