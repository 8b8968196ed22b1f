"""Custom protocol for status bars and pickers.

- notification `heal/status` {running: bool, failing: int, healing: str | null, lastHeal:
  {qualname, status, tokensIn, tokensOut, cost, model, meter} | null}
- request `heal/failures` -> {failures: [{id, test, message, exc_type, suspect, healable, reason}]}
"""

from __future__ import annotations

from heal_ls.lsp.log import connected, guarded
from heal_ls.lsp.protocol import FAILURES, STATUS, FailuresPayload, StatusPayload


def status_payload(ls) -> StatusPayload:
    return StatusPayload(
        running=any(folder.runs.running for folder in ls.folders),
        failing=sum(len(folder.state.known) for folder in ls.folders),
        healing=ls.healing_target,
        lastHeal=ls.last_heal,
    )


def notify(ls) -> None:
    if not connected(ls):
        return
    try:
        ls.protocol.notify(STATUS, status_payload(ls).to_wire())
    except Exception:  # the status bar is a nicety: never let it break a run
        pass


def failures_payload(ls) -> dict:
    known = [k.to_json() for f in ls.folders for k in f.state.known.values()]
    return FailuresPayload(known).to_wire()


def register(server) -> None:
    @server.feature(FAILURES)
    @guarded
    def failures(ls, params=None):
        return failures_payload(ls)
