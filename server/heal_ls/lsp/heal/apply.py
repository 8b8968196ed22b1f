"""Sending a verified fix: workspace/applyEdit with a TextDocumentEdit pinned to a version.

The fix was computed on `before` (the buffer when the heal started). If the buffer changed
since, the engine redoes it on the current text (`heal.plan.redo`: the new function spliced
again into its unchanged def, a multi-node fix re-planned when every node it touches is
unchanged); otherwise the fix is refused. Never applied blind, never to the disk.
"""

from __future__ import annotations

import os
from bisect import bisect_right
from dataclasses import dataclass

from lsprotocol import types
from pygls.workspace import PositionCodec

from heal_ls.heal.plan import PlanError, redo
from heal_ls.lsp.heal.unverified import write_diff
from heal_ls.lsp.workspace.documents import current_text, path_to_uri, split_lines
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.server import HealLanguageServer
from heal_ls.models import NodeEdit, Suspect
from heal_ls.pysource.diff import unified_diff


class Refused(Exception):
    """The fix cannot be applied to the current document; the message says why."""


@dataclass
class Applied:
    text: str  # the document text after the edit
    version: int | None  # the version the edit was pinned to


def end_position(codec: PositionCodec, lines: list[str]) -> types.Position:
    """The position just past the last character (after a final newline: the next line)."""
    if not lines or lines[-1].endswith(("\n", "\r")):
        return types.Position(len(lines), 0)
    last = lines[-1]
    return codec.position_to_client_units(lines, types.Position(len(lines) - 1, len(last)))


def minimal_edit(codec: PositionCodec, old: str, new: str) -> types.TextEdit:
    """One TextEdit replacing only the lines that differ (common prefix/suffix kept)."""
    a, b = split_lines(old), split_lines(new)
    prefix = 0
    while prefix < min(len(a), len(b)) and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(a), len(b)) - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    end_index = len(a) - suffix
    end = end_position(codec, a) if end_index == len(a) else types.Position(end_index, 0)
    return types.TextEdit(
        range=types.Range(types.Position(prefix, 0), end),
        new_text="".join(b[prefix : len(b) - suffix]),
    )


def offset_position(
    codec: PositionCodec, lines: list[str], starts: list[int], offset: int
) -> types.Position:
    """The LSP position (UTF-16 columns) of a code point offset into the text of `lines`."""
    line = bisect_right(starts, offset) - 1
    if line >= len(lines):
        return end_position(codec, lines)
    return codec.position_to_client_units(lines, types.Position(line, offset - starts[line]))


def node_edits(codec: PositionCodec, text: str, edits: list[NodeEdit]) -> list[types.TextEdit]:
    """One TextEdit per touched node of a planned fix (offsets into `text`)."""
    lines = split_lines(text)
    starts, at = [], 0
    for line in lines:
        starts.append(at)
        at += len(line)
    return [
        types.TextEdit(
            range=types.Range(
                offset_position(codec, lines, starts, e.start),
                offset_position(codec, lines, starts, e.end),
            ),
            new_text=e.text,
        )
        for e in edits
    ]


def edit_label(qualname: str, touched: list[str], radius: str | None) -> str:
    """The edit's label, which previews show: what it heals, touches, and its blast radius."""
    extra = f"; {radius}" if radius else ""
    return f"AI heal {qualname} (touches {', '.join(touched)}{extra})"


def fix_for(
    codec: PositionCodec,
    suspect: Suspect,
    current: str,
    before: str,
    after: str,
    edits: list[NodeEdit] | None,
    touched: list[str],
) -> tuple[str, list[types.TextEdit]]:
    """(fixed text, TextEdits) for the buffer's `current` text: one per node of a planned fix
    (re-planned if the buffer changed), else one minimal edit of the respliced function."""
    try:
        target, on_current = redo(current, before, after, suspect, list(edits or []), touched)
    except PlanError as exc:
        raise Refused(str(exc)) from None
    if edits:
        return target, node_edits(codec, current, on_current)
    return target, [minimal_edit(codec, current, target)]


async def apply_fix(
    server: HealLanguageServer,
    folder: Folder,
    suspect: Suspect,
    before: str,
    after: str,
    tries: int = 2,
    edits: list[NodeEdit] | None = None,
    touched: list[str] | None = None,
    confirm: str | None = None,
    radius: str | None = None,
) -> Applied:
    """Apply the fix to the buffer of `suspect.path`; raise Refused with the reason if not.

    A planned fix (`edits`: several nodes, helpers, imports) goes as one TextEdit per node; on a
    buffer that changed meanwhile it is re-planned when its touched nodes are unchanged (else
    refused). A single-function edit is respliced into the changed text the same way. An edit
    the editor refused as stale is redone on the new text once. With `confirm` (why: a function with many
    callers) the user sees the fix first: an edit annotated needsConfirmation where the client
    supports change annotations (VS Code's refactor preview), else a question. `radius` (the
    blast radius) goes into the edit's label, which previews show.
    """
    touched = touched or [suspect.qualname]
    uri = path_to_uri(suspect.path)
    reason = "no answer"
    for _ in range(tries):
        current, version = current_text(server, suspect.path)
        if current is None:
            raise Refused(f"{suspect.path} cannot be read")
        codec = server.workspace.position_codec
        target, changes = fix_for(codec, suspect, current, before, after, edits, touched)
        edit = types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
            edits=list(changes),
        )
        label = edit_label(suspect.qualname, touched, radius)
        workspace_edit = types.WorkspaceEdit(document_changes=[edit])
        if confirm and supports_annotations(server):
            workspace_edit = needing_confirmation(edit, label, confirm)
        elif confirm and not await user_confirms(
            server, folder, suspect, (current, target), confirm
        ):
            raise Refused(f"not applied: declined ({confirm})")
        params = types.ApplyWorkspaceEditParams(edit=workspace_edit, label=label)
        result = await server.workspace_apply_edit_async(params)
        if result.applied:
            return Applied(target, version)
        reason = result.failure_reason or "the editor declined the edit"
        if current_text(server, suspect.path) == (current, version):
            break  # declined, not stale (the user discarded the preview): never ask again
    raise Refused(f"the editor did not apply the fix: {reason}")


PREVIEW = "heal-preview"
APPLY = "Apply fix"
SHOW_DIFF = "Show diff"
DISCARD_FIX = "Discard"


def supports_annotations(server: HealLanguageServer) -> bool:
    workspace = server.client_capabilities.workspace
    edit = workspace.workspace_edit if workspace else None
    return bool(edit and edit.change_annotation_support)


def needing_confirmation(edit: types.TextDocumentEdit, label: str, why: str) -> types.WorkspaceEdit:
    """The same edit, every TextEdit annotated so the editor asks (and previews) first."""
    annotated = types.TextDocumentEdit(
        text_document=edit.text_document,
        edits=[
            types.AnnotatedTextEdit(range=e.range, new_text=e.new_text, annotation_id=PREVIEW)
            for e in edit.edits
            if not isinstance(e, types.SnippetTextEdit)  # we never make snippet edits
        ],
    )
    note = types.ChangeAnnotation(label=label, needs_confirmation=True, description=why)
    return types.WorkspaceEdit(document_changes=[annotated], change_annotations={PREVIEW: note})


async def user_confirms(
    server: HealLanguageServer,
    folder: Folder,
    suspect: Suspect,
    texts: tuple[str, str],
    why: str,
) -> bool:
    """A client without change annotations (Neovim) is asked instead of previewing: "Show diff"
    opens the fix as a diff (window/showDocument) and asks again."""
    shown = False
    while True:
        offered = [APPLY, DISCARD_FIX] if shown else [APPLY, SHOW_DIFF, DISCARD_FIX]
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=f"heal: {suspect.qualname}: {why}",
            actions=[types.MessageActionItem(title) for title in offered],
        )
        choice = await server.window_show_message_request_async(params)
        if choice is None or choice.title != SHOW_DIFF:
            return choice is not None and choice.title == APPLY
        diff = unified_diff(os.path.relpath(suspect.path, folder.root), *texts)
        document = types.ShowDocumentParams(uri=path_to_uri(write_diff(suspect.qualname, diff)))
        await server.window_show_document_async(document)
        shown = True
