"""$/cancelRequest for our commands. pygls cancels only the future of a workspace/executeCommand
request, not the command handler it started; this protocol also stops the work behind it (the
heal task, or the explicit test run in flight), so a client's cancel button really cancels."""

from __future__ import annotations

from collections import OrderedDict

from lsprotocol import types

from heal_ls.lsp.log import logger
from heal_ls.lsp.protocol import HEALS, RUNS
from heal_ls.lsp.transport.sync import DocumentSyncProtocol

REMEMBERED = 200  # recent executeCommand ids; a cancel refers to a recent request


class HealProtocol(DocumentSyncProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.command_ids: OrderedDict = OrderedDict()

    def _handle_request(self, msg_id, method_name, params):
        if method_name == types.WORKSPACE_EXECUTE_COMMAND:
            self.command_ids[msg_id] = getattr(params, "command", None)
            while len(self.command_ids) > REMEMBERED:
                self.command_ids.popitem(last=False)
        return super()._handle_request(msg_id, method_name, params)

    def _handle_cancel_notification(self, msg_id):
        running = msg_id in self._request_futures
        super()._handle_cancel_notification(msg_id)
        command = self.command_ids.pop(msg_id, None)
        if running and command is not None:
            cancel_command(self._server, command)


def cancel_command(ls, command: str) -> None:
    logger.info("client cancelled %s", command)
    if command in HEALS and ls.heal_task is not None and not ls.heal_task.done():
        ls.heal_task.cancel()
    elif command in RUNS:
        for folder in ls.folders:
            if folder.runs.explicit is not None:
                folder.runs.explicit.cancel()
