"""A heal in the test's own process: what `heal-ls fix` does for its first target (without the
flaky triage and the report), so per-case rows need no CLI process. The candidates are still
verified by real pytest runs in the sandbox; tests/e2e/test_fix.py keeps the real CLI rows."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from heal_ls.diagnose import diagnose
from heal_ls.heal.config import HealConfig
from heal_ls.heal.events import HealEvent
from heal_ls.heal.loop import heal_failure
from heal_ls.heal.targets import group_targets, shared_first
from heal_ls.models import HealResult
from heal_ls.testing.warm.client import shutdown_all


def heal_first_target(
    root: Path,
    config: HealConfig,
    script: str | None = None,
    on_event: Callable[[HealEvent], None] | None = None,
) -> HealResult:
    """diagnose (run and locate), then heal_failure on the first target (`on_event` sees its
    events, as the CLI's output does); the warm runners the heal started are shut down in the
    same event loop."""

    async def heal() -> HealResult:
        try:
            run, located = await diagnose(root, config.run_options(), script=script)
            target = shared_first(group_targets(located), located)[0]
            assert target.suspect is not None, target.reason
            return await heal_failure(
                str(root),
                target.failures[0],
                config=config,
                run=run,
                suspect=target.suspect,
                also_failing=target.failures[1:],
                on_event=on_event,
            )
        finally:
            await shutdown_all()

    return asyncio.run(heal())
