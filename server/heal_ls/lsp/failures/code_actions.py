"""textDocument/codeAction: `AI heal <qualname>`, `Debug failing test`, `Re-run test` (quickfix).

Offered for a heal diagnostic in the context and for any def a known failure points at, even
with no diagnostic. The request never runs a model or tests: it reads a per-document index of
"lines -> failures", rebuilt off the request path when the document or the failures change.
Its work is O(diagnostics on the line), whatever the traceback's depth: an action names the
diagnostics it fixes by what editors key them on (range, severity, code, source, message), not
by echoing their frames (related information) and data back.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lsprotocol import types

from heal_ls.lsp.arguments import (
    DebugTestArgs,
    HealFunctionArgs,
    RunScriptArgs,
    RunTestsArgs,
    to_wire,
)
from heal_ls.lsp.failures.code_index import Indexes
from heal_ls.lsp.log import guarded
from heal_ls.lsp.protocol import (
    DEBUG_TEST,
    HEAL_FUNCTION,
    RUN_SCRIPT,
    RUN_TESTS,
    DiagnosticData,
)
from heal_ls.lsp.workspace.server import HealLanguageServer
from heal_ls.lsp.workspace.state import Known
from heal_ls.payload import PayloadError, from_object


def actions_for(
    known: Known, diagnostics: list[types.Diagnostic], many: bool
) -> Iterator[types.CodeAction]:
    failure, suffix = known.failure, f" ({known.label()})" if many else ""
    if known.healable and known.suspect is not None and known.flaky is None:
        arg = to_wire(HealFunctionArgs(failure=known.id))
        blast = f" — {known.blast.text()}" if known.blast else ""
        member = known.suspect.member  # a class that lacks it: the heal adds it
        what = f"class {known.suspect.qualname}: add {member}" if member else known.suspect.qualname
        title = f"AI heal {what}{blast}{suffix}"
        yield _quickfix(title, "AI heal", HEAL_FUNCTION, arg, diagnostics, preferred=True)
    if failure.test:
        arg = to_wire(DebugTestArgs(test=failure.test))
        title = f"Debug failing test{suffix}"
        yield _quickfix(title, "Debug failing test", DEBUG_TEST, arg, diagnostics)
        arg = to_wire(RunTestsArgs(test=failure.test))
        yield _quickfix(f"Re-run test{suffix}", "Re-run test", RUN_TESTS, arg, diagnostics)
    elif failure.script:
        arg = to_wire(RunScriptArgs(script=failure.script))
        yield _quickfix("Re-run script", "Re-run script", RUN_SCRIPT, arg, diagnostics)


def named(diagnostic: types.Diagnostic) -> types.Diagnostic:
    """The diagnostic as an action names it: without its related information (a deep
    traceback's frames) and data, which would otherwise go back in every action."""
    return types.Diagnostic(
        range=diagnostic.range,
        message=diagnostic.message,
        severity=diagnostic.severity,
        code=diagnostic.code,
        source=diagnostic.source,
    )


def _quickfix(
    title: str,
    button: str,
    command: str,
    arg: dict[str, Any],
    diagnostics: list[types.Diagnostic],
    preferred: bool | None = None,
) -> types.CodeAction:
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=diagnostics or None,
        is_preferred=preferred,
        command=types.Command(title=button, command=command, arguments=[arg]),
    )


def failure_ids_in_context(
    known: dict[str, Known], context: types.CodeActionContext
) -> dict[str, list[types.Diagnostic]]:
    found: dict[str, list[types.Diagnostic]] = {}
    for diagnostic in context.diagnostics or []:
        failure = failure_of(diagnostic)
        if failure in known:
            found.setdefault(failure, []).append(named(diagnostic))
    return found


def failure_of(diagnostic: types.Diagnostic) -> str | None:
    """The failure a heal diagnostic's `data` names, read back as the DiagnosticData it was
    sent as; None for another source's diagnostic or data that is not ours."""
    if diagnostic.source != "heal":
        return None
    try:
        return from_object(DiagnosticData, diagnostic.data).failure
    except PayloadError:
        return None


def code_actions(
    server: HealLanguageServer, indexes: Indexes, params: types.CodeActionParams
) -> list[types.CodeAction]:
    only = params.context.only
    if only and not any(kind.startswith(types.CodeActionKind.QuickFix) for kind in only):
        return []
    folder = server.folder_of_uri(params.text_document.uri)
    if folder is None:
        return []
    known_here = folder.state.known
    in_context = failure_ids_in_context(known_here, params.context)
    index = indexes.get(params.text_document.uri)
    if index is not None:
        first, last = params.range.start.line, params.range.end.line
        for span in index.spans:
            if span.first <= last and first <= span.last:
                in_context.setdefault(span.known.id, [])
    knowns = [known_here[i] for i in in_context if i in known_here]
    actions: list[types.CodeAction] = []
    healed: set[str] = set()
    for known in knowns:
        for action in actions_for(known, in_context[known.id], many=len(knowns) > 1):
            if action.command is not None and action.command.command == HEAL_FUNCTION:
                key = action.title.split(" (")[0]
                if key in healed:
                    continue  # one heal per function, however many tests fail in it
                healed.add(key)
            actions.append(action)
    return actions


def register(server: HealLanguageServer) -> None:
    indexes = Indexes(server)
    server.failure_listeners.append(indexes.refresh_all)
    options = types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, options)
    @guarded
    def on_code_action(
        server: HealLanguageServer, params: types.CodeActionParams
    ) -> list[types.CodeAction]:
        return code_actions(server, indexes, params)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def on_open(server: HealLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        indexes.schedule(params.text_document.uri, delay=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def on_change(server: HealLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        indexes.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def on_close(server: HealLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        indexes.forget(params.text_document.uri)
