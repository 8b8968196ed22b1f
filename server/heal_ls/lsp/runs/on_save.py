"""textDocument/didSave: re-run, in the background, the failing tests and the tests that
exercised functions of the saved file. Debounced; a newer save cancels the older run and its
tests are carried over into the newer one. Off with heal.autoVerifyOnSave=false."""

from __future__ import annotations

import os

from lsprotocol import types

from heal_ls.lsp.log import guarded, logger
from heal_ls.lsp.workspace.documents import uri_to_path

DEBOUNCE_SECONDS = 0.3


def affected_tests(ls, path: str) -> set[str]:
    tests = set(ls.state.failing_tests()) | set(ls.state.tests_touching(path))
    if not tests:
        from heal_ls.locate import is_test_file

        if is_test_file(path):  # nothing known yet: a saved test file runs its own tests
            tests.add(os.path.relpath(path, ls.root).replace(os.sep, "/"))
    return tests


def register(server) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    @guarded
    def on_save(ls, params: types.DidSaveTextDocumentParams):
        path = uri_to_path(params.text_document.uri)
        folder = ls.folder_for(path)
        if folder is None or path is None:
            logger.debug("saved file outside the workspace: %s", path)
            return
        ls = folder
        if not ls.settings.autoVerifyOnSave or not path.endswith(".py"):
            return
        ls.save_pending |= affected_tests(ls, path)
        if not ls.save_pending:
            return

        def finished(ran):
            ls.save_pending.difference_update(ran)

        ls.runs.in_background(sorted(ls.save_pending), delay=DEBOUNCE_SECONDS, done=finished)
