"""The one run-and-locate pipeline: run the tests (or a script), then locate every failure.

Used by `heal-ls check`, `heal-ls fix`, the bench and the language server. A partial run (some
tests) that holds no passing test around its failures gets a contrast for ranking: the passing
tests of an earlier full run when the caller has one (the editor), else one traced run of the
failing tests' modules (locate/contrast.py). A failure that cannot be located (a bug of ours)
is logged and reported without a heal target; it never hides the other failures.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence

from heal_ls.locate import Located, locate
from heal_ls.locate.contrast import needs_contrast, with_contrast, with_passing
from heal_ls.models import Failure, RunResult
from heal_ls.testing.options import RunOptions

logger = logging.getLogger(__name__)

Diagnosis = tuple[RunResult, list[tuple[Failure, Located]]]


async def diagnose(
    root: str | os.PathLike[str],
    options: RunOptions | None = None,
    *,
    tests: Sequence[str] | None = None,
    script: str | None = None,
    on_row: Callable[[dict], None] | None = None,
    passing_from: RunResult | None = None,
    contrast_run: bool = True,
) -> Diagnosis:
    """Run pytest (or the script) in `root` and locate every failure.

    `passing_from`: an earlier full run whose passing tests contrast a partial run;
    `contrast_run=False`: never start a run of our own for that."""
    root = os.path.abspath(str(root))
    options = options or RunOptions()
    if script:
        from heal_ls.testing.script import run_script

        run = await run_script(
            root,
            script,
            python=options.python,
            timeout=options.run_timeout,
            overlay=options.overlay,
        )
    else:
        from heal_ls.testing.runner import run_pytest

        run = await run_pytest(root, nodeids=tests, on_row=on_row, **options.pytest_kwargs())
    located = locate_all(run.failures, root, run)
    if not tests or not needs_contrast(run):  # a full run holds every passing test there is
        return run, located
    if passing_from is not None and passing_from is not run:
        evidence = with_passing(run, passing_from.tests)
    elif contrast_run:
        evidence = await with_contrast(run, located, options)
    else:
        return run, located
    return run, locate_all(run.failures, root, evidence)


def locate_all(
    failures: list[Failure], root: str, evidence: RunResult
) -> list[tuple[Failure, Located]]:
    """Locate each failure with the run's evidence; one that fails to locate is reported with
    the reason instead of a suspect, and the others are located as usual."""
    located = []
    for failure in failures:
        try:
            found = locate(failure, root, evidence)
        except Exception as exc:  # noqa: BLE001 - one odd failure must not hide the others
            logger.error("could not locate %s: %s: %s", failure.id, type(exc).__name__, exc)
            found = Located([], False, f"locate failed: {exc}")
        located.append((failure, found))
    return located
