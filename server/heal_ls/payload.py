"""The one serialiser and the one reader of heal-ls's payloads: what crosses a module or a
process boundary as JSON (the language server's messages, the command line's --json documents,
a benchmark's stored evidence) is a typed class, an attrs class or a dataclass, and becomes plain
JSON data here, and is read back here, nowhere else.

`to_json(value)` (`to_object` for one payload): a payload becomes a dict of its fields by name,
nested payloads, lists, tuples and dicts too; a field whose metadata has `LOCAL` stays off the
wire, one with `OMIT_NONE` is left out when it is None, and a field holding ABSENT is left out.

`from_object(cls, data)`: the payload back from its JSON object, every field checked against its
annotation, nested payloads too; a field left out takes its default, a LOCAL one the caller's
value (`local`), and data that does not fit raises PayloadError saying where (the bench reads
`heal-ls check --json` and `fix --json` from its child processes so: a malformed document is a
row's note, never a crash; and its real-bug corpus's files: a malformed one is an error naming it).

(The user-side agent, stdlib only and Python 3.8, has its own pair: its messages are dataclasses
in `testing/agent/heal_protocol.py`, written by `encode` and read by `build`.)
"""

from __future__ import annotations

import dataclasses
import functools
import sys
import types
import typing
from collections.abc import Mapping
from typing import Any, NamedTuple, TypeVar

T = TypeVar("T")

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


class PayloadError(ValueError):
    """JSON data that is not the payload it should be: a field missing or of the wrong type. It
    says where: `CheckDocument.failures[0].frames[2].line: expected int, got str`."""


def from_object(cls: type[T], data: Any, local: Mapping[str, Any] | None = None) -> T:
    """The payload class `cls` read from its JSON object (see the module docstring): str, int,
    float (an int too), bool, None, Literal, unions, list, tuple, dict and payload classes;
    a key `cls` does not have is ignored (older or newer data), LOCAL fields are not read: their
    values, if `cls` needs them, are `local`'s (by name; e.g. a file's name, not in the file)."""
    if local is not None:
        found: T = _read_payload(cls, data, cls.__name__, local)
        return found
    value: T = _read(cls, data, cls.__name__)
    return value


class _Field(NamedTuple):
    name: str  # on the wire
    init: str  # the constructor's keyword (attrs drops a leading underscore)
    kind: Any  # the resolved annotation
    required: bool  # no default
    metadata: Mapping[str, Any]


@functools.cache
def _fields(cls: type) -> tuple[_Field, ...]:
    """The fields the constructor takes, their annotations resolved (attrs or dataclass)."""
    hints = typing.get_type_hints(cls)
    attr = sys.modules.get("attr")
    if attr is not None and attr.has(cls):
        return tuple(
            _Field(a.name, a.alias or a.name, hints[a.name], a.default is attr.NOTHING, a.metadata)
            for a in attr.fields(cls)
            if a.init
        )
    found = []
    for f in dataclasses.fields(cls):
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        if f.init:
            found.append(_Field(f.name, f.name, hints[f.name], required, f.metadata))
    return tuple(found)


def _read(kind: Any, value: Any, where: str) -> Any:
    if isinstance(kind, type) and field_metadata(kind) is not None:
        return _read_payload(kind, value, where)
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is typing.Union or origin is types.UnionType:
        return _read_union(args, value, where)
    if origin is typing.Literal:
        if any(value == arg and type(value) is type(arg) for arg in args):
            return value
        raise PayloadError(f"{where}: expected one of {list(args)}, got {value!r}")
    if origin is list:
        items = _expect(value, list, where)
        return [_read(args[0], item, f"{where}[{i}]") for i, item in enumerate(items)]
    if origin is tuple:
        items = _expect(value, list, where)
        if len(args) == 2 and args[1] is Ellipsis:
            args = (args[0],) * len(items)
        elif len(items) != len(args):
            raise PayloadError(f"{where}: expected {len(args)} items, got {len(items)}")
        return tuple(
            _read(a, item, f"{where}[{i}]") for i, (a, item) in enumerate(zip(args, items))
        )
    if origin is dict:
        pairs = _expect(value, dict, where)
        return {
            _read(args[0], k, where): _read(args[1], v, f"{where}[{k!r}]") for k, v in pairs.items()
        }
    return _read_plain(kind, value, where)


def _read_payload(cls: type, value: Any, where: str, local: Mapping[str, Any] | None = None) -> Any:
    data = _expect(value, dict, where)
    values = {}
    for f in _fields(cls):
        if f.metadata.get(LOCAL):
            if local and f.name in local:
                values[f.init] = local[f.name]
            continue
        if f.name in data:
            values[f.init] = _read(f.kind, data[f.name], f"{where}.{f.name}")
        elif f.required:
            raise PayloadError(f"{where}: field {f.name!r} is missing")
    try:
        return cls(**values)
    except (TypeError, ValueError) as exc:  # a check of the class's own (__post_init__, attrs)
        raise PayloadError(f"{where}: {exc}") from None


def _read_union(options: tuple[Any, ...], value: Any, where: str) -> Any:
    if value is None and type(None) in options:
        return None
    kinds = [k for k in options if k is not type(None) and k is not Absent]
    if len(kinds) == 1:  # X | None: X's own error says where
        return _read(kinds[0], value, where)
    for kind in kinds:
        try:
            return _read(kind, value, where)
        except PayloadError:
            continue
    names = " | ".join(
        "None" if k is type(None) else getattr(k, "__name__", str(k)) for k in options
    )
    raise PayloadError(f"{where}: expected {names}, got {_json_name(value)}")


_PLAIN: dict[Any, tuple[type, ...]] = {
    str: (str,),
    int: (int,),
    float: (int, float),
    bool: (bool,),
    type(None): (type(None),),
}


def _read_plain(kind: Any, value: Any, where: str) -> Any:
    if kind is Any or kind is object:
        return value
    allowed = _PLAIN.get(kind)
    if allowed is None:
        raise PayloadError(f"{where}: cannot read a {kind!r} from JSON")
    if isinstance(value, allowed) and (kind is bool or not isinstance(value, bool)):
        return value
    raise PayloadError(f"{where}: expected {kind.__name__}, got {_json_name(value)}")


def _expect(value: Any, kind: type[T], where: str) -> T:
    if not isinstance(value, kind):
        raise PayloadError(f"{where}: expected {_json_name(kind())}, got {_json_name(value)}")
    return value


def _json_name(value: Any) -> str:
    """What JSON calls the value's type (as the error messages say it)."""
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"a number ({value!r})"
    return names.get(type(value), type(value).__name__)
