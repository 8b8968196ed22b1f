"""No verified fix: say why, and offer the best candidate as a diff (never applied silently).

The offer is a window/showMessageRequest; choosing it writes a .diff file to the temp dir and
opens it with window/showDocument.
"""

from __future__ import annotations

import os
import re
import tempfile

from lsprotocol import types

from heal_ls.lsp.log import logger
from heal_ls.lsp.workspace.documents import path_to_uri
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.server import HealLanguageServer
from heal_ls.models import HealResult, Suspect
from heal_ls.pysource.diff import unified_diff
from heal_ls.pysource.splice import splice

SHOW = "Show best candidate as diff"
APPLY_WEAK = "Apply weak fix"
DISCARD = "Discard"


def candidate_diff(folder: Folder, suspect: Suspect, before: str, result: HealResult) -> str:
    """The diff of the best candidate against the text the heal started from."""
    if result.diff or result.best_diff:  # a multi-node candidate comes as its own diff
        return result.diff or result.best_diff

    if result.best_candidate is None:
        raise ValueError("no candidate to show")
    after = splice(before, suspect, result.best_candidate)
    return unified_diff(os.path.relpath(suspect.path, folder.root), before, after)


def write_diff(qualname: str, diff: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", qualname)
    handle, path = tempfile.mkstemp(prefix=f"heal-{safe}-", suffix=".diff")
    with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
        out.write(diff)
    return path


async def offer_best_candidate(
    server: HealLanguageServer, folder: Folder, suspect: Suspect, before: str, result: HealResult
) -> None:
    reason = result.reason or result.status
    message = f"heal: no verified fix for {suspect.qualname}: {reason}"
    if not (result.best_candidate or result.diff or result.best_diff):
        server.show(message, types.MessageType.Warning)
        return
    params = types.ShowMessageRequestParams(
        type=types.MessageType.Warning,
        message=message,
        actions=[types.MessageActionItem(SHOW)],
    )
    choice = await server.window_show_message_request_async(params)
    if choice is None or choice.title != SHOW:
        return
    try:
        diff = candidate_diff(folder, suspect, before, result)
    except Exception as exc:  # the candidate may not even splice: show it as it is
        logger.info("best candidate does not splice (%s); showing it raw", exc)
        diff = result.best_candidate or ""
    path = write_diff(suspect.qualname, diff)
    await server.window_show_document_async(
        types.ShowDocumentParams(uri=path_to_uri(path), take_focus=True)
    )


def question(result: HealResult) -> str:
    if result.status == "review":
        reason = result.reason or ""
        return f"The fix {reason.removeprefix('needs review: the fix ')}. Apply it?"
    return "Apply this weak fix?"


async def confirm_weak_fix(
    server: HealLanguageServer, folder: Folder, suspect: Suspect, before: str, result: HealResult
) -> bool:
    """A weak fix (its tests pass, but no passing test guards the function) or one that needs
    review (it adds what the allow-list does not vouch for) is always shown as a diff first,
    then applied only if the user says so."""
    path = write_diff(suspect.qualname, candidate_diff(folder, suspect, before, result))
    await server.window_show_document_async(
        types.ShowDocumentParams(uri=path_to_uri(path), take_focus=True)
    )
    params = types.ShowMessageRequestParams(
        type=types.MessageType.Warning,
        message=f"heal: {suspect.qualname}: {result.proof}. {question(result)}",
        actions=[types.MessageActionItem(APPLY_WEAK), types.MessageActionItem(DISCARD)],
    )
    choice = await server.window_show_message_request_async(params)
    return choice is not None and choice.title == APPLY_WEAK
