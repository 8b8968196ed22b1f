"""The one serialiser of heal-ls's payloads: what crosses a module or a process boundary as JSON
(the language server's messages, the command line's --json rows) is a typed class, an attrs
class or a dataclass, and becomes plain JSON data here and nowhere else.

`to_json(value)` (`to_object` for one payload): a payload becomes a dict of its fields by name, nested payloads, lists, tuples
and dicts too; a field whose metadata has `LOCAL` stays off the wire, one with `OMIT_NONE` is
left out when it is None, and a field holding ABSENT is left out. (The user-side agent, stdlib only, has its own: its messages are
dataclasses in `testing/agent/heal_protocol.py`.)
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping
from typing import Any

LOCAL = "heal_local"  # metadata key: the field is kept in the process, never sent
OMIT_NONE = "heal_omit_none"  # metadata key: the field is left out when None (optional on the wire)


class Absent:
    """The value of a field that is not on the wire at all (where None would say `null`)."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = Absent()


def field_metadata(value: object) -> list[tuple[str, Mapping[str, Any]]] | None:
    """(name, metadata) of each field of an attrs class or dataclass (instance or class)."""
    cls = value if isinstance(value, type) else type(value)
    # An attrs class exists only where attrs was imported (the language server's payloads), so
    # `heal-ls check` does not import it to learn that its dataclasses are none (~25 ms of CPU).
    attr = sys.modules.get("attr")  # attrs's own package, under both `import attrs` and `attr`
    if attr is not None and attr.has(cls):
        return [(a.name, a.metadata) for a in attr.fields(cls)]
    if dataclasses.is_dataclass(cls):
        return [(f.name, f.metadata) for f in dataclasses.fields(cls)]
    return None


def to_json(value: object) -> Any:
    """`value` as JSON data (see the module docstring)."""
    names = field_metadata(value)
    if names is not None:
        wire = {}
        for name, metadata in names:
            item = getattr(value, name)
            omitted = item is ABSENT or (item is None and metadata.get(OMIT_NONE))
            if metadata.get(LOCAL) or omitted:
                continue
            wire[name] = to_json(item)
        return wire
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    if isinstance(value, dict):
        return {key: to_json(item) for key, item in value.items()}
    return value


def to_object(payload: object) -> dict[str, Any]:
    """A payload class's instance as a JSON object (a plain dict is refused: type it)."""
    wire = to_json(payload)
    if field_metadata(payload) is None or not isinstance(wire, dict):
        raise TypeError(f"not a payload class: {type(payload).__name__}")
    return wire
