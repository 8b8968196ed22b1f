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
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from heal_ls.heal.budget import Usage
from heal_ls.heal.events import HealEvent
from heal_ls.heal.loop import heal_failure
from heal_ls.locate.refind import refind
from heal_ls.lsp.arguments import HealFailingTestArgs, HealFunctionArgs, convert, to_wire
from heal_ls.lsp.heal.after_apply import rerun_after_apply
from heal_ls.lsp.heal.apply import Applied, Refused, apply_fix
from heal_ls.lsp.heal.flaky import triage
from heal_ls.lsp.heal.shared_cause import cause_of, group_of
from heal_ls.lsp.heal.unverified import confirm_weak_fix, offer_best_candidate
from heal_ls.lsp.log import guarded, logger
from heal_ls.lsp.progress import Progress
from heal_ls.lsp.protocol import HEAL_FAILING_TEST, HEAL_FUNCTION, HealOutcome, LastHeal
from heal_ls.lsp.workspace import status
from heal_ls.lsp.workspace.config import heal_config
from heal_ls.lsp.workspace.documents import current_text, unsaved_overlay
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.folders import in_workspace
from heal_ls.lsp.workspace.server import HealLanguageServer
from heal_ls.lsp.workspace.state import Known
from heal_ls.models import HealResult, Suspect
from heal_ls.payload import to_object


def outcome(
    status_: str, message: str, known: Known | None = None, applied: bool = False, **more: Any
) -> HealOutcome:
    qualname = known.suspect.qualname if known and known.suspect else None
    return HealOutcome(status_, message, applied, qualname, **more)


def current_suspect(server: HealLanguageServer, known: Known) -> tuple[str, Suspect]:
    """(current text, the suspect re-found by name in it): the buffer may have moved it."""
    suspect = known.suspect
    assert suspect is not None, "only healable failures (with a suspect) are healed"
    text, _ = current_text(server, suspect.path)
    if text is None:
        raise Refused(f"cannot read {suspect.path}")
    found = refind(suspect, text)
    if found is None:
        raise Refused(f"{suspect.qualname} is no longer in {suspect.path}")
    return text, found


def progress_reporter(progress: Progress, min_interval: float = 0.1) -> Callable[[HealEvent], None]:
    """HealEvents as progress reports, at most ~10 a second except for the main steps."""
    last = [0.0]

    def on_event(event: HealEvent) -> None:
        if event.kind == "chunk":
            return  # too many to show; "asking" already said we are waiting for the model
        now = time.monotonic()
        if event.kind in ("candidate", "rejected") and now - last[0] < min_interval:
            return
        last[0] = now
        step = f"attempt {event.attempt}/{event.total}: " if event.attempt and event.total else ""
        progress.report(f"{step}{event.message}"[:200])

    return on_event


async def heal_task(server: HealLanguageServer, folder: Folder, known: Known) -> HealOutcome:
    """The heal task: its outcome, also when it fails (a cancel still cancels it)."""
    try:
        return await heal_known(server, folder, known)
    except Refused as exc:
        return outcome("refused", str(exc), known)
    except Exception as exc:  # a provider or config error: one clear line, the log has the rest
        logger.debug("heal of %s failed", known.id, exc_info=exc)
        return outcome("failed", f"{type(exc).__name__}: {exc}", known)


async def heal_known(server: HealLanguageServer, folder: Folder, known: Known) -> HealOutcome:
    """Its shared cause first (lsp/heal/shared_cause.py), else its own function."""
    if (
        await triage(server, folder, known) and known.flaky
    ):  # flaky: not a bug of the function, no model call
        message = f"{known.label()} is {known.flaky.label()}; not healed (re-run or debug it)"
        return outcome("flaky", message, known)
    cause = cause_of(server, folder, known)
    if cause.id != known.id:  # a run since the request may have replaced `known` by an equal one
        done = await heal_as(server, folder, cause, for_=known)
        if done is not None:
            return done
    return await heal_as(server, folder, known) or outcome("failed", "no fix", known)


async def heal_as(
    server: HealLanguageServer, folder: Folder, known: Known, for_: Known | None = None
) -> HealOutcome | None:
    """Heal `known`'s function: everything from asking to the applied edit. for_: the failure
    the user asked about, healed through this shared cause only if its candidate makes it pass
    (None otherwise: nothing was shown or applied)."""
    try:
        before, suspect = current_suspect(server, known)
    except (Refused, SyntaxError) as exc:
        return outcome("failed", f"cannot heal now: {exc}", known)
    overlay = unsaved_overlay(server, folder.root)
    others = [k.failure for k in folder.state.for_function(suspect.path, suspect.qualname)]
    others = [f for f in others if f.id != known.id]
    title = f"heal: {suspect.qualname}"
    async with Progress(server, folder, title, asyncio.current_task()) as progress:
        progress.report("starting")
        result = await heal_failure(
            folder.root,
            known.failure,
            config=heal_config(folder.settings),
            run=folder.runs.last_run,
            suspect=suspect,
            overlay=overlay,
            on_event=progress_reporter(progress),
            also_failing=others,
        )
        meter = remember_budget(server, suspect.qualname, result)
        count_found_guards(known, result)
        if result.warning:
            server.show(f"heal: {result.warning}", types.MessageType.Warning)
        weak = result.status in ("weak", "review") and result.new_source is not None
        passed = weak or (result.status == "verified" and result.new_source is not None)
        healed = [known.failure, *others]
        group = await group_of(server, folder, suspect.path, result, healed) if passed else []
        if for_ is not None and for_ not in group:
            return None  # not its cause: the failure asked about is healed on its own
        others += [k.failure for k in group]
        if not passed:
            result.reason = f"{result.reason or 'no verified fix'}{meter}"
            offer = offer_best_candidate(server, folder, suspect, before, result)
            server.run_task(offer, "offer candidate")
            return outcome(result.status, result.reason or "no verified fix", known, told=True)
        progress.report(result.proof[:200])
        if weak and not await confirm_weak_fix(server, folder, suspect, before, result):
            said = result.reason if result.status == "review" else "weak fix"
            return outcome(result.status, f"{said} (not applied): {result.proof}", known, told=True)
        progress.report("applying the fix")
        assert result.new_source is not None  # verified or weak: both carry the new text
        applied = await apply_verified(server, folder, known, suspect, before, result)
    rerun_after_apply(server, folder, known, others, suspect.path, applied.text, result)
    message = fixed_message(known, suspect, result, meter)
    return outcome(result.status, message, known, True, touched=result.touched)


def count_found_guards(known: Known, result: HealResult) -> None:
    """The blast radius counts the guards the heal's own discovery (heal/guards.py) found: they
    beat the last runs' coverage."""
    if known.blast is not None and result.status != "skipped":
        known.blast = replace(known.blast, guards=len(result.guards) + len(result.guards_cut))


async def apply_verified(
    server: HealLanguageServer,
    folder: Folder,
    known: Known,
    suspect: Suspect,
    before: str,
    result: HealResult,
) -> Applied:
    """Apply a verified (or accepted weak) fix; a function with many callers is previewed."""
    blast = known.blast
    wide = blast is not None and blast.callers > folder.settings.previewAboveCallers
    assert result.new_source is not None  # verified or weak: both carry the new text
    return await apply_fix(
        server,
        folder,
        suspect,
        before,
        result.new_source,
        edits=result.edits,
        touched=result.touched,
        confirm=f"{blast.text()}: preview before applying" if blast and wide else None,
        radius=blast.text() if blast else None,
    )


def fixed_message(known: Known, suspect: Suspect, result: HealResult, meter: str) -> str:
    touched = ", ".join(result.touched or [suspect.qualname])
    radius = f"; {known.blast.text()}" if known.blast else ""
    message = f"{suspect.qualname} fixed, {result.proof} (touched: {touched}{radius})"
    message += f"; re-running its tests{meter}"
    if result.notes:
        message += " (" + "; ".join(result.notes) + ")"
    return message


def remember_budget(server: HealLanguageServer, qualname: str, result: HealResult) -> str:
    """Keep the heal's budget for heal/status; return it as a message suffix ('' if no model)."""
    spent = Usage(result.tokens_in, result.tokens_out, result.cost)
    server.last_heal = LastHeal(
        qualname=qualname,
        status=result.status,
        tokensIn=spent.tokens_in,
        tokensOut=spent.tokens_out,
        cost=None if spent.cost is None else round(spent.cost, 6),
        model=result.model,
        meter=spent.text() if result.model else "no model call",
    )
    return f" ({spent.text()})" if result.model else ""


async def heal(server: HealLanguageServer, folder: Folder, known: Known) -> HealOutcome:
    """Heal `known` (a failure of `folder`) as the server's one heal task; tell the user."""
    if not known.healable or known.suspect is None:
        return outcome("skipped", known.reason or "no function to heal for this failure", known)
    if server.heal_task is not None and not server.heal_task.done():
        server.show(f"heal: already healing {server.healing_target}", types.MessageType.Warning)
        return outcome("busy", f"already healing {server.healing_target}", known)
    task = server.run_task(heal_task(server, folder, known), f"heal of {known.id}")
    server.heal_task = task
    server.healing_target = known.suspect.qualname
    status.notify(server)
    try:
        result = await task
    except asyncio.CancelledError:
        result = outcome("cancelled", "heal cancelled", known)
    finally:
        server.healing_target = None
        status.notify(server)
    if not result.told:  # the unverified offer already told the user
        verified = result.status in ("verified", "flaky") or result.applied
        level = types.MessageType.Info if verified else types.MessageType.Warning
        server.show(f"heal: {result.status}: {result.message}", level)
    return result


async def pick_failure(server: HealLanguageServer) -> tuple[Folder, Known] | None:
    healable = [(f, k) for f in server.folders for k in f.state.known.values() if k.healable]
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
        qualname = known.suspect.qualname if known.suspect else known.label()
        titles[f"{qualname} ({known.label()}){where}"] = (folder, known)
    params = types.ShowMessageRequestParams(
        type=types.MessageType.Info,
        message="heal: which failure should be healed?",
        actions=[types.MessageActionItem(title) for title in titles],
    )
    choice = await server.window_show_message_request_async(params)
    return titles.get(choice.title) if choice else None


def register(server: HealLanguageServer) -> None:
    @server.command(HEAL_FUNCTION)
    @guarded
    async def heal_function(server: HealLanguageServer, *args: Any) -> dict[str, Any]:
        given = convert(args, HealFunctionArgs, HEAL_FUNCTION)
        folder = known = None
        if given.failure is not None:
            folder = server.folder_of_test(given.failure)
            known = folder.state.find(given.failure) if folder else None
        if known is None and given.qualname is not None:
            folder, path = in_workspace(server, given.uri, HEAL_FUNCTION)
            matches = folder.state.for_function(path, given.qualname)
            known = matches[0] if matches else None
        if known is None or folder is None:
            raise JsonRpcInvalidParams(f"{HEAL_FUNCTION}: no known failure for {to_wire(given)}")
        return to_object(await heal(server, folder, known))

    @server.command(HEAL_FAILING_TEST)
    @guarded
    async def heal_failing_test(server: HealLanguageServer, *args: Any) -> dict[str, Any]:
        test = convert(args, HealFailingTestArgs, HEAL_FAILING_TEST).test
        picked: tuple[Folder, Known | None] | None
        if test is not None:
            folder = server.folder_of_test(test)
            picked = (folder, folder.state.find(test)) if folder else None
        else:
            picked = await pick_failure(server)
        if picked is None or picked[1] is None:
            message = f"no known failure for {test}" if test else "no failing test to heal"
            server.show(f"heal: {message} (run the tests first)")
            return to_object(outcome("skipped", message))
        return to_object(await heal(server, picked[0], picked[1]))
