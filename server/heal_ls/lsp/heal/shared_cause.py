"""A shared cause in the editor, as in `heal-ls fix`: healed once, its group never attacked.

Before a heal, the current failures are ranked as `heal-ls fix` orders its targets
(heal/targets.shared_first): when a function that is the top suspect of another failure and a
suspect of this one comes first, that failure is healed first (`cause_of`). After a heal, the
other failing tests run on its candidate, verified or weak, in the sandbox; those that pass are
its group (`group_of`). A failure whose cause's candidate does not make it pass is healed on its
own, so healing either diagnostic of a group leads to the same candidate, never to an edit of
the group's other suspects.
"""

from __future__ import annotations

from heal_ls.heal.shared_cause import recheck
from heal_ls.heal.targets import HealTarget, group_targets, shared_first
from heal_ls.locate import Located, locate
from heal_ls.lsp.runs.run import warm_runner
from heal_ls.lsp.workspace.config import heal_config
from heal_ls.lsp.workspace.documents import unsaved_overlay
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.server import HealLanguageServer
from heal_ls.lsp.workspace.state import Known
from heal_ls.models import Failure, HealResult


def _ranked(folder: Folder, known: Known, overlay: dict[str, str]) -> Located:
    """The failure's suspects, its diagnostic's function first."""
    top = known.suspect
    assert top is not None, "only healable failures are ranked"
    try:
        ranked = locate(known.failure, folder.root, folder.runs.last_run, overlay=overlay).suspects
    except Exception:  # ranking is advice: without it, the failure's own function stands
        ranked = []
    rest = [s for s in ranked if (s.path, s.qualname) != (top.path, top.qualname)]
    return Located([top, *rest], healable=True)


def cause_of(server: HealLanguageServer, folder: Folder, known: Known) -> Known:
    """The failure to heal first for `known`: the first target in the shared-first order whose
    function is one of `known`'s suspects (`known` itself when none comes before its own)."""
    overlay = unsaved_overlay(server, folder.root)
    current = [k for k in folder.state.known.values() if k.healable and k.suspect and not k.flaky]
    located = [(k.failure, _ranked(folder, k, overlay)) for k in current]
    mine = {
        (s.path, s.qualname) for f, where in located if f.id == known.id for s in where.suspects
    }
    for target in shared_first(group_targets(located), located):
        s = target.suspect
        if s is not None and (s.path, s.qualname) in mine:
            return folder.state.find(target.failures[0].id) or known
    return known


async def group_of(
    server: HealLanguageServer,
    folder: Folder,
    path: str,
    result: HealResult,
    healed: list[Failure],
) -> list[Known]:
    """The other current failures whose tests pass on the heal's candidate (in the sandbox);
    the result's proof names them."""
    ids = {f.id for f in healed}
    others = [k for k in folder.state.known.values() if k.failure.test and k.id not in ids]
    if not others or result.new_source is None:
        return []
    config = heal_config(folder.settings)
    passing = await recheck(
        folder.root,
        [HealTarget(failures=[k.failure]) for k in others],
        config.run_options(
            overlay={**unsaved_overlay(server, folder.root), path: result.new_source},
            warm=warm_runner(folder),
            sandbox=config.sandbox,
        ),
    )
    group = [k for k in others if k.failure.test in passing]
    if group:
        result.proof += f"; its candidate also makes {', '.join(k.label() for k in group)} pass"
    return group
