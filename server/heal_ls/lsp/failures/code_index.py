"""The per-document index behind code actions: which lines belong to which known failure.

Built once per (document version, failures generation): right after each run for every open
document, and a moment after each edit, so textDocument/codeAction only scans a few spans.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from heal_ls.locate import ModuleIndex, index_source
from heal_ls.lsp.failures.diagnostics import error_line
from heal_ls.lsp.workspace.documents import uri_to_path
from heal_ls.lsp.workspace.server import HealLanguageServer
from heal_ls.lsp.workspace.state import Known


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


def function_span(
    text_index: ModuleIndex, line: int, qualname: str | None
) -> tuple[int, int] | None:
    """Current 0-based line span of the def named `qualname` (near `line`), or around `line`."""
    node = text_index.find(qualname, near_line=line) if qualname else None
    node = node or text_index.function_at(line)
    return (node.start_line - 1, node.end_line - 1) if node else None


def snapshot(server: HealLanguageServer, path: str) -> tuple[list[Known], int]:
    """The failures of the folder holding `path` and their generation (none outside folders)."""
    folder = server.folder_for(path)
    if folder is None:
        return [], -1
    return list(folder.state.known.values()), folder.state.generation


def build_index(server: HealLanguageServer, path: str, text: str, version: int | None) -> DocIndex:
    """Snapshot the failures here, on the loop; parse (maybe in a thread) in `index_spans`."""
    knowns, generation = snapshot(server, path)
    return DocIndex(version, generation, index_spans(knowns, path, text))


def index_spans(knowns: list[Known], path: str, text: str) -> list[Span]:
    text_index: ModuleIndex | None
    try:
        text_index = index_source(text)
    except Exception:  # mid-edit (syntax error) or odd text: use the lines the run reported
        text_index = None
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
    return spans


class Indexes:
    """One index per open document, keyed by (version, failures generation)."""

    def __init__(self, server: HealLanguageServer) -> None:
        self.server = server
        self.by_uri: dict[str, DocIndex] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}

    def get(self, uri: str) -> DocIndex | None:
        doc = self.server.workspace.text_documents.get(uri)
        path = uri_to_path(uri)
        if doc is None or path is None:
            return None
        index = self.by_uri.get(uri)
        if index is None or index.generation != snapshot(self.server, path)[1]:
            # new failures (normally indexed right after the run): build it now
            index = self.by_uri[uri] = build_index(self.server, path, doc.source, doc.version)
        elif index.version != doc.version:
            self.schedule(uri)  # typing: serve the last index, rebuild off this request
        return index

    def refresh_all(self) -> None:
        """Re-index every open document now (called once after each run)."""
        for uri, doc in list(self.server.workspace.text_documents.items()):
            path = uri_to_path(uri)
            if path is not None and path.endswith(".py"):
                self.by_uri[uri] = build_index(self.server, path, doc.source, doc.version)

    def schedule(self, uri: str, delay: float = 0.05) -> None:
        if uri in self.pending and not self.pending[uri].done():
            return

        async def rebuild() -> None:
            await asyncio.sleep(delay)
            doc = self.server.workspace.text_documents.get(uri)
            path = uri_to_path(uri)
            if doc is not None and path is not None:  # parse in a thread: requests go on
                source, version = doc.source, doc.version
                knowns, generation = snapshot(self.server, path)
                spans = await asyncio.to_thread(index_spans, knowns, path, source)
                self.by_uri[uri] = DocIndex(version, generation, spans)

        self.pending[uri] = self.server.run_task(rebuild(), f"index {uri}")

    def forget(self, uri: str) -> None:
        self.by_uri.pop(uri, None)
