"""textDocument/codeAction: `AI heal <qualname>`, `Debug failing test`, `Re-run test` (quickfix).

Offered for a heal diagnostic in the context and for any def a known failure points at, even
with no diagnostic. The request never runs a model or tests: it reads a per-document index of
"lines -> failures", rebuilt off the request path when the document or the failures change.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from lsprotocol import types

from heal_ls.lsp.diagnostics import error_line
from heal_ls.lsp.documents import uri_to_path
from heal_ls.lsp.log import guarded, logger, spawn
from heal_ls.lsp.state import Known

HEAL_FUNCTION = "heal.healFunction"
DEBUG_TEST = "heal.debugTest"
RUN_TESTS = "heal.runTests"
RUN_SCRIPT = "heal.runScript"


@dataclass
class Span:
    first: int  # 0-based, inclusive
    last: int
    known: Known


@dataclass
class DocIndex:
    version: int | None
    generation: int
    spans: list[Span]


def function_span(text_index, line: int, qualname: str | None) -> tuple[int, int] | None:
    """Current 0-based line span of the def named `qualname` (near `line`), or around `line`."""
    node = text_index.find(qualname, near_line=line) if qualname else None
    node = node or text_index.function_at(line)
    return (node.start_line - 1, node.end_line - 1) if node else None


def build_index(ls, path: str, text: str, version) -> DocIndex:
    from heal_ls.locate import index_source

    knowns = list(ls.state.known.values())
    try:
        text_index = index_source(text)
    except (SyntaxError, ValueError):
        text_index = None  # mid-edit: fall back to the lines the run reported
    spans = []
    for known in knowns:
        suspect, failure = known.suspect, known.failure
        if suspect is not None and suspect.path == path:
            span = (suspect.start_line - 1, suspect.end_line - 1)
            if text_index is not None:
                span = function_span(text_index, suspect.def_line, suspect.qualname) or span
            spans.append(Span(*span, known))
        where = error_line(known) if suspect is None else None
        if where is not None and where[0] == path:  # module level: the crashing line itself
            spans.append(Span(where[1] - 1, where[1] - 1, known))
        if failure.test_path == path and failure.test_line:
            span = (failure.test_line - 1, failure.test_line - 1)
            if text_index is not None:
                span = function_span(text_index, failure.test_line, None) or span
            spans.append(Span(*span, known))
    return DocIndex(version, ls.state.generation, spans)


class Indexes:
    """One index per open document, keyed by (version, failures generation)."""

    def __init__(self, ls):
        self.ls = ls
        self.by_uri: dict[str, DocIndex] = {}
        self.pending: dict[str, asyncio.Task] = {}

    def get(self, uri: str) -> DocIndex | None:
        doc = self.ls.workspace.text_documents.get(uri)
        path = uri_to_path(uri)
        if doc is None or path is None:
            return None
        index = self.by_uri.get(uri)
        if index is None or index.generation != self.ls.state.generation:
            # new failures (normally indexed right after the run): build it now
            index = self.by_uri[uri] = build_index(self.ls, path, doc.source, doc.version)
        elif index.version != doc.version:
            self.schedule(uri)  # typing: serve the last index, rebuild off this request
        return index

    def refresh_all(self) -> None:
        """Re-index every open document now (called once after each run)."""
        for uri, doc in list(self.ls.workspace.text_documents.items()):
            path = uri_to_path(uri)
            if path is not None and path.endswith(".py"):
                self.by_uri[uri] = build_index(self.ls, path, doc.source, doc.version)

    def schedule(self, uri: str, delay: float = 0.05) -> None:
        if uri in self.pending and not self.pending[uri].done():
            return

        async def rebuild():
            await asyncio.sleep(delay)
            doc = self.ls.workspace.text_documents.get(uri)
            if doc is not None:
                path = uri_to_path(uri)
                self.by_uri[uri] = build_index(self.ls, path, doc.source, doc.version)

        self.pending[uri] = spawn(rebuild(), f"index {uri}")

    def forget(self, uri: str) -> None:
        self.by_uri.pop(uri, None)


def actions_for(known: Known, diagnostics: list[types.Diagnostic], many: bool):
    failure, suffix = known.failure, f" ({known.label()})" if many else ""
    quickfix = types.CodeActionKind.QuickFix
    if known.healable and known.suspect is not None:
        arg = {"failure": known.id}
        yield types.CodeAction(
            title=f"AI heal {known.suspect.qualname}{suffix}",
            kind=quickfix,
            diagnostics=diagnostics or None,
            is_preferred=True,
            command=types.Command(title="AI heal", command=HEAL_FUNCTION, arguments=[arg]),
        )
    if failure.test:
        arg = {"test": failure.test}
        yield types.CodeAction(
            title=f"Debug failing test{suffix}",
            kind=quickfix,
            diagnostics=diagnostics or None,
            command=types.Command(title="Debug failing test", command=DEBUG_TEST, arguments=[arg]),
        )
        yield types.CodeAction(
            title=f"Re-run test{suffix}",
            kind=quickfix,
            diagnostics=diagnostics or None,
            command=types.Command(title="Re-run test", command=RUN_TESTS, arguments=[arg]),
        )
    elif failure.script:
        yield types.CodeAction(
            title="Re-run script",
            kind=quickfix,
            diagnostics=diagnostics or None,
            command=types.Command(
                title="Re-run script", command=RUN_SCRIPT, arguments=[{"script": failure.script}]
            ),
        )


def failure_ids_in_context(ls, context: types.CodeActionContext) -> dict[str, list]:
    found: dict[str, list] = {}
    for diagnostic in context.diagnostics or []:
        data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
        if diagnostic.source == "heal" and data.get("failure") in ls.state.known:
            found.setdefault(data["failure"], []).append(diagnostic)
    return found


def code_actions(ls, params: types.CodeActionParams) -> list[types.CodeAction]:
    only = params.context.only
    if only and not any(kind.startswith(types.CodeActionKind.QuickFix) for kind in only):
        return []
    in_context = failure_ids_in_context(ls, params.context)
    index = ls.indexes.get(params.text_document.uri)
    if index is not None:
        first, last = params.range.start.line, params.range.end.line
        for span in index.spans:
            if span.first <= last and first <= span.last:
                in_context.setdefault(span.known.id, [])
    knowns = [ls.state.known[i] for i in in_context if i in ls.state.known]
    actions, healed = [], set()
    for known in knowns:
        for action in actions_for(known, in_context[known.id], many=len(knowns) > 1):
            if action.command.command == HEAL_FUNCTION:
                key = action.title.split(" (")[0]
                if key in healed:
                    continue  # one heal per function, however many tests fail in it
                healed.add(key)
            actions.append(action)
    return actions


def register(server) -> None:
    server.indexes = Indexes(server)
    options = types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, options)
    @guarded
    def on_code_action(ls, params: types.CodeActionParams):
        return code_actions(ls, params)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def on_open(ls, params: types.DidOpenTextDocumentParams):
        ls.indexes.schedule(params.text_document.uri, delay=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def on_change(ls, params: types.DidChangeTextDocumentParams):
        ls.indexes.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def on_close(ls, params: types.DidCloseTextDocumentParams):
        ls.indexes.forget(params.text_document.uri)

    logger.debug("code actions registered")
