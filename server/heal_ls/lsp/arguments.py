"""The arguments of heal-ls's commands (workspace/executeCommand), typed: one attrs class per
command's argument object, converted once, where its handler receives them (`convert`).

Arguments arrive unpacked (pygls 2): a command takes one optional object; a bare string counts
as `{"uri": ...}`; keys a command does not know are ignored. Every value is a string or null. A
null means "not given", except where a key's presence is the choice itself (`strict`): a null
`test` for heal.runTests is a bad test id, not "run everything". A value of the wrong type is an
InvalidParams error that says what was expected. The checks that need the workspace (a test id
inside it, a uri in a folder) stay with the handlers (lsp/runs/commands.py).
"""

from __future__ import annotations

from typing import Any, TypeVar

import attrs
from pygls.exceptions import JsonRpcInvalidParams

from heal_ls.payload import OMIT_NONE, to_object


def _text(expect: str, strict: bool = False) -> Any:
    """A string field, None when not given; `strict`: a present null is an error."""
    return attrs.field(default=None, metadata={"expect": expect, "strict": strict, OMIT_NONE: True})


@attrs.frozen
class RunTestsArgs:
    """heal.runTests: one test (`test`, wins), a file's tests (`uri`), or all (neither)."""

    test: str | None = _text("a pytest node id", strict=True)
    uri: str | None = _text("a file uri")


@attrs.frozen
class LoadReportArgs:
    """heal.loadReport: a JUnit XML report (`report`: a path or a file uri, e.g. from CI) and
    the workspace folder it belongs to (`folder`: a uri; default: the folder holding the
    report, else the first)."""

    report: str | None = _text("a report path or a file uri", strict=True)
    folder: str | None = _text("a folder uri")


@attrs.frozen
class RunScriptArgs:
    """heal.runScript: `script` (a workspace-relative path or a file uri, wins) or `uri`."""

    script: str | None = _text("a script path or a file uri", strict=True)
    uri: str | None = _text("a file uri")


@attrs.frozen
class DebugTestArgs:
    """heal.debugTest: the test to debug (none: the only failing test)."""

    test: str | None = _text("a pytest node id", strict=True)


@attrs.frozen
class HealFailingTestArgs:
    """heal.healFailingTest: the failing test to heal (none: the only one, or the user picks)."""

    test: str | None = _text("a pytest node id or failure id")


@attrs.frozen
class HealFunctionArgs:
    """heal.healFunction: a known failure's id (the code action), else a function by `uri` and
    `qualname`."""

    failure: str | None = _text("a failure id")
    uri: str | None = _text("a file uri")
    qualname: str | None = _text("a qualified function name")


Args = TypeVar("Args", bound=attrs.AttrsInstance)


def convert(args: tuple[Any, ...], cls: type[Args], command: str) -> Args:
    """The handler's unpacked `*args` as a `cls`, or InvalidParams saying what was expected."""
    first = args[0] if args else None
    if isinstance(first, str):
        first = {"uri": first}
    if first is None:
        first = {}
    if not isinstance(first, dict):
        raise JsonRpcInvalidParams(f"{command}: expected an object argument, got {first!r}")
    values = {}
    for field in attrs.fields(cls):
        value = first.get(field.name)
        null_ok = field.name not in first or not field.metadata["strict"]
        if not (isinstance(value, str) or (value is None and null_ok)):
            expect = field.metadata["expect"]
            raise JsonRpcInvalidParams(f"{command}: {field.name} must be {expect}, got {value!r}")
        values[field.name] = value
    return cls(**values)


def to_wire(args: attrs.AttrsInstance) -> dict[str, str]:
    """The argument object as a client sends it: the given keys only."""
    return to_object(args)
