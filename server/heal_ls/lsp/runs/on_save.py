"""textDocument/didSave: re-run, in the background, the failing tests and the tests that
exercised functions of the saved file. Debounced; a newer save cancels the older run and its
tests are carried over into the newer one. Off with heal.autoVerifyOnSave=false."""

from __future__ import annotations

import os

from lsprotocol import types

from heal_ls.lsp.log import guarded, logger
from heal_ls.lsp.runs import run
from heal_ls.lsp.runs.test_files import holds_tests
from heal_ls.lsp.workspace.documents import uri_to_path
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.server import HealLanguageServer

DEBOUNCE_SECONDS = 0.3


def affected_tests(folder: Folder, path: str) -> set[str]:
    tests = set(folder.state.failing_tests()) | set(folder.state.tests_touching(path))
    if not tests and holds_tests(folder, path):  # nothing known yet: a test file runs its own
        tests.add(os.path.relpath(path, folder.root).replace(os.sep, "/"))
    return tests


def register(server: HealLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    @guarded
    def on_save(server: HealLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        path = uri_to_path(params.text_document.uri)
        folder = server.folder_for(path)
        if folder is None or path is None:
            logger.debug("saved file outside the workspace: %s", path)
            return
        if not folder.settings.autoVerifyOnSave or not path.endswith(".py"):
            return
        folder.save_pending |= affected_tests(folder, path)
        if not folder.save_pending:
            return

        def finished(ran: list[str] | None) -> None:
            folder.save_pending.difference_update(ran or [])

        tests = sorted(folder.save_pending)
        run.in_background(server, folder, tests, delay=DEBOUNCE_SECONDS, done=finished)
