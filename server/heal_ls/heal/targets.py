"""From located failures to heal targets: one per suspect function, however many tests fail in it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from heal_ls.locate.refind import refind
from heal_ls.models import Failure, Suspect

if TYPE_CHECKING:
    from heal_ls.locate import Located


@dataclass
class HealTarget:
    failures: list[Failure] = field(default_factory=list)
    suspect: Suspect | None = None  # None: not healable
    reason: str | None = None


def group_targets(located: Sequence[tuple[Failure, Located]]) -> list[HealTarget]:
    """Group failures by their top suspect; a failure without one stays a target of its own."""
    targets: dict[tuple[object, ...], HealTarget] = {}
    for failure, where in located:
        suspect = where.suspects[0] if where.healable and where.suspects else None
        key = (suspect.path, suspect.qualname, suspect.start_line) if suspect else (failure.id,)
        target = targets.setdefault(key, HealTarget(suspect=suspect, reason=where.reason))
        target.failures.append(failure)
    return list(targets.values())


def shared_first(
    targets: list[HealTarget], located: Sequence[tuple[Failure, Located]]
) -> list[HealTarget]:
    """Targets whose function is a suspect of more failures go first (a shared cause is healed
    before the functions that merely call it); ties keep their order."""

    def sharing(target: HealTarget) -> int:
        s = target.suspect
        if s is None:
            return 0
        return sum(
            any((o.path, o.qualname) == (s.path, s.qualname) for o in where.suspects)
            for _, where in located
        )

    return sorted(targets, key=lambda t: -sharing(t))


def refresh_suspect(suspect: Suspect, updated: dict[str, str]) -> Suspect:
    """Find the suspect again in a module an earlier fix of this run already changed."""
    text = updated.get(suspect.path)
    return (refind(suspect, text) if text is not None else None) or suspect
