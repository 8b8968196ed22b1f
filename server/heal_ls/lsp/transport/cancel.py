"""$/cancelRequest for our commands. pygls cancels only the future of a workspace/executeCommand
request, not the command handler it started; this protocol also tells the server
(`on_cancelled_command`: the heal task, or the explicit test run in flight, is stopped), so a
client's cancel button really cancels."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from lsprotocol import types

from heal_ls.lsp.transport.sync import DocumentSyncProtocol

REMEMBERED = 200  # recent executeCommand ids; a cancel refers to a recent request


def ignore(command: str) -> None:
    """No server listens yet."""


class HealProtocol(DocumentSyncProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.command_ids: OrderedDict[Any, str | None] = OrderedDict()
        self.on_cancelled_command: Callable[[str], None] = ignore

    def _handle_request(self, msg_id: Any, method_name: str, params: Any) -> Any:
        if method_name == types.WORKSPACE_EXECUTE_COMMAND:
            self.command_ids[msg_id] = getattr(params, "command", None)
            while len(self.command_ids) > REMEMBERED:
                self.command_ids.popitem(last=False)
        return super()._handle_request(msg_id, method_name, params)

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        running = msg_id in self._request_futures
        super()._handle_cancel_notification(msg_id)
        command = self.command_ids.pop(msg_id, None)
        if running and command is not None:
            self.on_cancelled_command(command)
