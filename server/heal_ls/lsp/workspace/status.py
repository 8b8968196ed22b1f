"""Custom protocol for status bars and pickers (the payloads: lsp/protocol.py).

- notification `heal/status`: a StatusPayload
- request `heal/failures` -> a FailuresPayload
"""

from __future__ import annotations

from typing import Any

from heal_ls.lsp.log import connected, guarded
from heal_ls.lsp.protocol import FAILURES, STATUS, FailuresPayload, StatusPayload
from heal_ls.lsp.workspace.server import HealLanguageServer
from heal_ls.payload import to_object


def status_payload(server: HealLanguageServer) -> StatusPayload:
    return StatusPayload(
        running=any(folder.runs.running for folder in server.folders),
        failing=sum(len(folder.state.known) for folder in server.folders),
        healing=server.healing_target,
        lastHeal=server.last_heal,
    )


def notify(server: HealLanguageServer) -> None:
    if not connected(server):
        return
    try:
        server.protocol.notify(STATUS, to_object(status_payload(server)))
    except Exception:  # the status bar is a nicety: never let it break a run
        pass


def failures_payload(server: HealLanguageServer) -> dict[str, Any]:
    known = [k.info() for f in server.folders for k in f.state.known.values()]
    return to_object(FailuresPayload(failures=known))


def register(server: HealLanguageServer) -> None:
    @server.feature(FAILURES)
    @guarded
    def failures(server: HealLanguageServer, params: Any = None) -> dict[str, Any]:
        return failures_payload(server)
