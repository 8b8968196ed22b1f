"""What the user allows a sandboxed run (testing/sandbox.py): the variables passed through and
whether a run may go unisolated where no sandbox works. Its own module because every RunOptions
holds one, and `heal-ls check` builds its RunOptions before it spawns pytest: the sandbox's
machinery (its views, mounts and environment) is imported only by the runs that use it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SandboxPolicy:
    """What the user chose: variables passed through and whether unisolated runs may proceed."""

    test_env: tuple[str, ...] = ()
    allow_unisolated: bool = False


def as_policy(sandbox: SandboxPolicy | bool | None) -> SandboxPolicy | None:
    """RunOptions(sandbox=True | False | None | SandboxPolicy) -> a policy or None."""
    if sandbox is True:
        return SandboxPolicy()
    return sandbox if isinstance(sandbox, SandboxPolicy) else None
