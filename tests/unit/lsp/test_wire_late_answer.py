"""The client's answer to a request the server stopped waiting for (a map fill cancelled while
its progress token was being created) is dropped quietly: it was logged as an ERROR, `handling
None failed: InvalidStateError`, each time a run cancelled a fill."""

import json
import logging
from concurrent.futures import Future

from heal_ls.lsp.transport.wire import handle_body
from heal_ls.lsp.workspace.server import HealLanguageServer


def test_a_late_answer_to_a_cancelled_request_is_no_error(caplog):
    protocol = HealLanguageServer().protocol
    waiting: Future[None] = Future()  # as pygls's send_request makes it
    protocol._request_futures["7"] = waiting
    waiting.cancel()  # the task awaiting it was cancelled
    answer = {"jsonrpc": "2.0", "id": "7", "result": None}
    with caplog.at_level(logging.DEBUG, logger="heal_ls"):
        handle_body(protocol, json.dumps(answer).encode())
    assert [r.levelname for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert any("late answer" in r.getMessage() for r in caplog.records)
