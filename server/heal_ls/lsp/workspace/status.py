"""Custom protocol for status bars and pickers.

- notification `heal/status` {running: bool, failing: int, healing: str | null, lastHeal:
  {qualname, status, tokensIn, tokensOut, cost, model, meter} | null}
- request `heal/failures` -> {failures: [{id, test, message, exc_type, suspect, healable, reason}]}
"""

from __future__ import annotations

from typing import Any

from heal_ls.lsp.log import connected, guarded
from heal_ls.lsp.protocol import FAILURES, STATUS, FailuresPayload, StatusPayload
from heal_ls.lsp.workspace.server import HealLanguageServer


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
        server.protocol.notify(STATUS, status_payload(server).to_wire())
    except Exception:  # the status bar is a nicety: never let it break a run
        pass


def failures_payload(server: HealLanguageServer) -> dict[str, Any]:
    known = [k.to_json() for f in server.folders for k in f.state.known.values()]
    return FailuresPayload(known).to_wire()


def register(server: HealLanguageServer) -> None:
    @server.feature(FAILURES)
    @guarded
    def failures(server: HealLanguageServer, params: Any = None) -> dict[str, Any]:
        return failures_payload(server)
