"""What a heal tells its caller as it goes (progress lines, the editor's work-done progress)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace


@dataclass
class HealEvent:
    kind: str  # cache|asking|chunk|candidate|rejected|note|verify_start|verify_end|done
    message: str
    attempt: int = 0
    total: int = 0
    proposer: str = ""  # who made the candidate this event is about ("local", "openai", ...)


def never_back(emit: Callable[[HealEvent], None]) -> Callable[[HealEvent], None]:
    """Progress whose attempt counter never goes back within a search step: candidates checked
    side by side finish in any order, and `attempt 13/40` after `attempt 14/40` reads as a step
    back. The counter says how far the step has come; each Attempt keeps its own number."""
    furthest = {"total": 0, "attempt": 0}

    def forward(event: HealEvent) -> None:
        if not event.total:  # no counter shown
            emit(event)
            return
        if event.total != furthest["total"]:  # a new step (local search, model rounds)
            furthest.update(total=event.total, attempt=0)
        if event.attempt < furthest["attempt"]:
            event = replace(event, attempt=furthest["attempt"])
        furthest["attempt"] = event.attempt
        emit(event)

    return forward
