"""heal.healFunction and heal.healFailingTest: run the heal loop as a cancellable task with
progress, apply a verified fix to the buffer, re-run the focused tests in the background.

Arguments: healFunction {failure} or {uri, qualname}; healFailingTest {test}? (none: the only
failure, or the user picks one through window/showMessageRequest).
Result: {status, message, applied, qualname}.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import replace

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from heal_ls.lsp.arguments import HealFailingTestArgs, HealFunctionArgs, convert, to_wire
from heal_ls.lsp.heal.after_apply import rerun_after_apply
from heal_ls.lsp.heal.apply import Refused, apply_fix
from heal_ls.lsp.heal.unverified import confirm_weak_fix, offer_best_candidate
from heal_ls.lsp.log import guarded, logger, spawn
from heal_ls.lsp.progress import Progress
from heal_ls.lsp.protocol import HEAL_FAILING_TEST, HEAL_FUNCTION, HealOutcome
from heal_ls.lsp.runs.commands import workspace_path
from heal_ls.lsp.workspace import status
from heal_ls.lsp.workspace.config import heal_config
from heal_ls.lsp.workspace.documents import current_text, unsaved_overlay
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.folders import folder_of_test
from heal_ls.lsp.workspace.state import Known


def outcome(
    status_: str, message: str, known: Known | None = None, applied=False, **more
) -> HealOutcome:
    qualname = known.suspect.qualname if known and known.suspect else None
    return HealOutcome(status_, message, applied, qualname, **more)


def current_suspect(ls: Folder, known: Known):
    """(current text, the suspect re-found by name in it): the buffer may have moved it."""
    from heal_ls.locate.refind import refind

    suspect = known.suspect
    assert suspect is not None, "only healable failures (with a suspect) are healed"
    text, _ = current_text(ls, suspect.path)
    if text is None:
        raise Refused(f"cannot read {suspect.path}")
    found = refind(suspect, text)
    if found is None:
        raise Refused(f"{suspect.qualname} is no longer in {suspect.path}")
    return text, found


def progress_reporter(progress: Progress, min_interval: float = 0.1):
    """HealEvents as progress reports, at most ~10 a second except for the main steps."""
    last = [0.0]

    def on_event(event) -> None:
        if event.kind == "chunk":
            return  # too many to show; "asking" already said we are waiting for the model
        now = time.monotonic()
        if event.kind in ("candidate", "rejected") and now - last[0] < min_interval:
            return
        last[0] = now
        step = f"attempt {event.attempt}/{event.total}: " if event.attempt and event.total else ""
        progress.report(f"{step}{event.message}"[:200])

    return on_event


async def heal_known(ls: Folder, known: Known) -> HealOutcome:
    """The heal task: its shared cause first (lsp/heal/shared_cause.py), else its own function."""
    from heal_ls.lsp.heal.flaky import triage
    from heal_ls.lsp.heal.shared_cause import cause_of

    if await triage(ls, known) and known.flaky:  # flaky: not a bug of the function, no model call
        message = f"{known.label()} is {known.flaky.label()}; not healed (re-run or debug it)"
        return outcome("flaky", message, known)
    cause = cause_of(ls, known)
    if cause is not known:
        done = await heal_as(ls, cause, for_=known)
        if done is not None:
            return done
    return await heal_as(ls, known) or outcome("failed", "no fix", known)


async def heal_as(ls: Folder, known: Known, for_: Known | None = None) -> HealOutcome | None:
    """Heal `known`'s function: everything from asking to the applied edit. for_: the failure
    the user asked about, healed through this shared cause only if its candidate makes it pass
    (None otherwise: nothing was shown or applied)."""
    from heal_ls.heal.loop import heal_failure
    from heal_ls.lsp.heal.shared_cause import group_of

    try:
        before, suspect = current_suspect(ls, known)
    except (Refused, SyntaxError) as exc:
        return outcome("failed", f"cannot heal now: {exc}", known)
    overlay = unsaved_overlay(ls, ls.root)
    others = [k.failure for k in ls.state.for_function(suspect.path, suspect.qualname)]
    others = [f for f in others if f.id != known.id]
    async with Progress(ls, f"heal: {suspect.qualname}", asyncio.current_task()) as progress:
        progress.report("starting")
        result = await heal_failure(
            ls.root,
            known.failure,
            config=heal_config(ls.settings),
            run=ls.runs.last_run,
            suspect=suspect,
            overlay=overlay,
            on_event=progress_reporter(progress),
            also_failing=others,
        )
        meter = remember_budget(ls, suspect.qualname, result)
        count_found_guards(known, result)
        if result.warning:
            ls.show(f"heal: {result.warning}", types.MessageType.Warning)
        weak = result.status in ("weak", "review") and result.new_source is not None
        passed = weak or (result.status == "verified" and result.new_source is not None)
        group = await group_of(ls, suspect.path, result, [known.failure, *others]) if passed else []
        if for_ is not None and for_ not in group:
            return None  # not its cause: the failure asked about is healed on its own
        others += [k.failure for k in group]
        if not passed:
            result.reason = f"{result.reason or 'no verified fix'}{meter}"
            spawn(offer_best_candidate(ls, suspect, before, result), "offer candidate")
            return outcome(result.status, result.reason or "no verified fix", known, told=True)
        progress.report(result.proof[:200])
        if weak and not await confirm_weak_fix(ls, suspect, before, result):
            said = result.reason if result.status == "review" else "weak fix"
            return outcome(result.status, f"{said} (not applied): {result.proof}", known, told=True)
        progress.report("applying the fix")
        assert result.new_source is not None  # verified or weak: both carry the new text
        applied = await apply_verified(ls, known, suspect, before, result)
    rerun_after_apply(ls, known, others, suspect.path, applied.text, result)
    message = fixed_message(known, suspect, result, meter)
    return outcome(result.status, message, known, True, touched=result.touched)


def count_found_guards(known: Known, result) -> None:
    """The blast radius counts the guards the heal's own discovery (heal/guards.py) found: they
    beat the last runs' coverage."""
    if known.blast is not None and result.status != "skipped":
        known.blast = replace(known.blast, guards=len(result.guards) + len(result.guards_cut))


async def apply_verified(ls: Folder, known: Known, suspect, before: str, result):
    """Apply a verified (or accepted weak) fix; a function with many callers is previewed."""
    blast = known.blast
    wide = blast is not None and blast.callers > ls.settings.previewAboveCallers
    return await apply_fix(
        ls,
        suspect,
        before,
        result.new_source,
        edits=result.edits,
        touched=result.touched,
        confirm=f"{blast.text()}: preview before applying" if blast and wide else None,
        radius=blast.text() if blast else None,
    )


def fixed_message(known: Known, suspect, result, meter: str) -> str:
    touched = ", ".join(result.touched or [suspect.qualname])
    radius = f"; {known.blast.text()}" if known.blast else ""
    message = f"{suspect.qualname} fixed, {result.proof} (touched: {touched}{radius})"
    message += f"; re-running its tests{meter}"
    if result.notes:
        message += " (" + "; ".join(result.notes) + ")"
    return message


def remember_budget(ls: Folder, qualname: str, result) -> str:
    """Keep the heal's budget for heal/status; return it as a message suffix ('' if no model)."""
    from heal_ls.heal.budget import Usage

    spent = Usage(result.tokens_in, result.tokens_out, result.cost)
    ls.last_heal = {
        "qualname": qualname,
        "status": result.status,
        "tokensIn": spent.tokens_in,
        "tokensOut": spent.tokens_out,
        "cost": None if spent.cost is None else round(spent.cost, 6),
        "model": result.model,
        "meter": spent.text() if result.model else "no model call",
    }
    return f" ({spent.text()})" if result.model else ""


async def heal(ls: Folder, known: Known) -> HealOutcome:
    if not known.healable or known.suspect is None:
        return outcome("skipped", known.reason or "no function to heal for this failure", known)
    if ls.heal_task is not None and not ls.heal_task.done():
        ls.show(f"heal: already healing {ls.healing_target}", types.MessageType.Warning)
        return outcome("busy", f"already healing {ls.healing_target}", known)
    ls.heal_task = task = asyncio.ensure_future(heal_known(ls, known))
    ls.healing_target = known.suspect.qualname
    status.notify(ls)
    try:
        result = await task
    except asyncio.CancelledError:
        result = outcome("cancelled", "heal cancelled", known)
    except Refused as exc:
        result = outcome("refused", str(exc), known)
    except Exception as exc:  # a provider or config error: one clear line, the log has the rest
        logger.debug("heal of %s failed", known.id, exc_info=exc)
        result = outcome("failed", f"{type(exc).__name__}: {exc}", known)
    finally:
        ls.healing_target = None
        status.notify(ls)
    if not result.told:  # the unverified offer already told the user
        verified = result.status in ("verified", "flaky") or result.applied
        level = types.MessageType.Info if verified else types.MessageType.Warning
        ls.show(f"heal: {result.status}: {result.message}", level)
    return result


async def pick_failure(ls) -> tuple[Folder, Known] | None:
    healable = [(f, k) for f in ls.folders for k in f.state.known.values() if k.healable]
    if len(healable) <= 1:
        return healable[0] if healable else None
    # The same test id can fail in two folders: then each button names its folder (by its
    # path when two folders share a name).
    names = {f.root: os.path.basename(f.root) for f, _ in healable}
    if len(set(names.values())) < len(names):
        names = {root: root for root in names}
    titles = {}
    for folder, known in healable[:20]:
        where = f" in {names[folder.root]}" if len(names) > 1 else ""
        titles[f"{known.suspect.qualname} ({known.label()}){where}"] = (folder, known)
    params = types.ShowMessageRequestParams(
        type=types.MessageType.Info,
        message="heal: which failure should be healed?",
        actions=[types.MessageActionItem(title) for title in titles],
    )
    choice = await ls.window_show_message_request_async(params)
    return titles.get(choice.title) if choice else None


def register(server) -> None:
    @server.command(HEAL_FUNCTION)
    @guarded
    async def heal_function(ls, *args):
        given = convert(args, HealFunctionArgs, HEAL_FUNCTION)
        folder = known = None
        if given.failure is not None:
            folder = folder_of_test(ls, given.failure)
            known = folder.state.find(given.failure) if folder else None
        if known is None and given.qualname is not None:
            path = workspace_path(ls, given.uri, HEAL_FUNCTION)
            folder = ls.folder_for(path)
            matches = folder.state.for_function(path, given.qualname)
            known = matches[0] if matches else None
        if known is None:
            raise JsonRpcInvalidParams(f"{HEAL_FUNCTION}: no known failure for {to_wire(given)}")
        assert folder is not None  # a known failure was found in a folder
        return (await heal(folder, known)).to_wire()

    @server.command(HEAL_FAILING_TEST)
    @guarded
    async def heal_failing_test(ls, *args):
        test = convert(args, HealFailingTestArgs, HEAL_FAILING_TEST).test
        if test is not None:
            folder = folder_of_test(ls, test)
            picked = (folder, folder.state.find(test)) if folder else None
        else:
            picked = await pick_failure(ls)
        if picked is None:
            message = f"no known failure for {test}" if test else "no failing test to heal"
            ls.show(f"heal: {message} (run the tests first)")
            return outcome("skipped", message).to_wire()
        return (await heal(*picked)).to_wire()
