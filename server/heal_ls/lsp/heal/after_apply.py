"""After a fix is applied in the editor: every test that touches the function runs again.

The heal verified the fix against the nearest guards its budget allowed (heal/guard_budget.py).
Once the edit is in the buffer, a background run (with work-done progress, replaced by a newer
run) takes the healed failures' tests, the other failures that ran the healed module (a shared
cause's diagnostics clear) and every guard of the function, those the budget cut included. A
guard that breaks is located and published like any failure, so its diagnostic opens again, and
the user is told which fix broke it.
"""

from __future__ import annotations

from lsprotocol import types

from heal_ls.lsp.runs import run
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.server import HealLanguageServer
from heal_ls.lsp.workspace.state import Known
from heal_ls.models import Failure, HealResult


def rerun_after_apply(
    server: HealLanguageServer,
    folder: Folder,
    known: Known,
    others: list[Failure],
    path: str,
    text: str,
    result: HealResult,
) -> None:
    """Re-run the healed failure's tests (or script) and the fix's guards on the fixed text."""
    fixed = {path: text}
    if known.failure.script:
        run.in_background(server, folder, None, overlay=fixed, script_path=known.failure.script)
        return
    guards = [*result.guards, *result.guards_cut]
    tests = touching_tests(folder, path, [known.failure, *others])
    tests += [g for g in guards if g not in tests]
    if not tests:
        return
    qualname = result.suspect.qualname if result.suspect else path
    run.in_background(
        server,
        folder,
        tests,
        overlay=fixed,
        done=lambda _: tell_broken(server, folder, qualname, guards),
    )


def tell_broken(
    server: HealLanguageServer, folder: Folder, qualname: str, guards: list[str]
) -> list[str]:
    """The guards that fail after the apply (their diagnostics are open again), told once."""
    broken = [g for g in guards if folder.state.find(g) is not None]
    if broken:
        names = ", ".join(broken[:3]) + (f" and {len(broken) - 3} more" if len(broken) > 3 else "")
        server.show(
            f"heal: the fix of {qualname} broke {len(broken)} test(s) that passed before: {names}",
            types.MessageType.Warning,
        )
    return broken


def touching_tests(folder: Folder, path: str, healed: list[Failure]) -> list[str]:
    """The healed failures' tests plus every failing test that ran code of the healed module: a
    shared cause's other failures are re-run too, so their diagnostics clear."""
    tests = [f.test for f in healed if f.test]
    for other in folder.state.known.values():
        failure = other.failure
        ran = any(key.rsplit(":", 1)[0] == path for key in failure.covered)
        in_frames = any(frame.path == path for frame in failure.frames)
        if failure.test and failure.test not in tests and (ran or in_frames):
            tests.append(failure.test)
    return tests
