"""textDocument/didChange, didSave, didClose: only for open documents, only moving forward.

A change older than the document's version would make the server adopt stale text and pin its
next edit to it; notifications about documents never opened (or changes that do not apply)
would raise inside pygls and pop up "Error in server". Both are logged and ignored.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.workspace import TextDocument

from heal_ls.lsp.log import logger


class DocumentSyncProtocol(LanguageServerProtocol):
    def _open(self, uri: str, method: str) -> TextDocument | None:
        doc: TextDocument | None = self.workspace.text_documents.get(uri)
        if doc is None:
            logger.info("ignored %s for a document that is not open: %s", method, uri)
        return doc

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        uri, version = params.text_document.uri, params.text_document.version
        doc = self._open(uri, "didChange")
        if doc is None:
            return
        if version is not None and doc.version is not None and version < doc.version:
            logger.info("ignored didChange v%s older than v%s of %s", version, doc.version, uri)
            return
        source = doc.source
        try:
            yield from super().lsp_text_document__did_change(params)
        except (IndexError, ValueError, TypeError, AttributeError) as exc:
            doc._source = source  # keep the text we knew
            logger.warning("ignored a didChange that does not apply to %s: %s", uri, exc)

    @lsp_method(types.TEXT_DOCUMENT_DID_SAVE)
    def lsp_text_document__did_save(
        self, params: types.DidSaveTextDocumentParams
    ) -> Generator[Any, Any, None]:
        handler = self.fm.features.get(types.TEXT_DOCUMENT_DID_SAVE)
        if self._open(params.text_document.uri, "didSave") is not None and handler is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(
        self, params: types.DidCloseTextDocumentParams
    ) -> Generator[Any, Any, None]:
        if self._open(params.text_document.uri, "didClose") is not None:
            yield from super().lsp_text_document__did_close(params)
