"""The test's doubles: where a double the failing check is about came into our code.

A test puts a double in place of a function (`monkeypatch.setattr(check, "_check_file",
recorder)`, `mock.patch.object(module, "name", fake)`, `with mock.patch("pkg.mod.name") as m`)
or hands one in among options (`transport_options={'interval_start': 0, 'errback': errback}`),
then checks what the double recorded (`len(recorder.calls) > 1`, `errback.assert_called()`), or
the double checks what it is handed (an assert in the test's own fake). The double did what the
test told it to; the def of ours that called it, or read the options it came in, decided what
it got. unittest.mock's own records name their callers at run time (`Failure.mock_callers`);
these readings need only the test's source and the failure's frames, for any kind of double
(pretend's recorders, a test's lambda, a Mock never called).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from heal_ls.models import Failure, Frame
from heal_ls.pysource.parse import Def, name_of
from heal_ls.pysource.paths import TestFiles, is_workspace_file

# The calls that put a value in place of an attribute: the replaced name is a string argument
# (`setattr(target, "name", new)`, `patch.object(target, "name", new)`) or the last part of a
# dotted target (`setattr("pkg.mod.name", new)`, `patch("pkg.mod.name", new)`).
_SETTERS = {"setattr"}
_PATCHERS = {"patch", "object"}


@dataclass(frozen=True)
class Installed:
    """A double the test put in place of `replaced` (an attribute's or function's name)."""

    double: str  # the test's local name for it
    replaced: str


def installed_doubles(test: Def) -> list[Installed]:
    """The doubles the test function put in place of a name, by the local that holds each:
    the value handed to a setattr or patch (`new=` too), or what a patch returned (`m =
    mocker.patch(...)`, `with mock.patch(...) as m`)."""
    found: list[Installed] = []
    for node in ast.walk(test):
        if isinstance(node, ast.Call) and (replaced := _replaced_name(node)):
            new = node.args[-1] if _new_positional(node) else _keyword(node, "new")
            if isinstance(new, ast.Name):
                found.append(Installed(new.id, replaced))
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            made = _patch_call(node.value)
            replaced = _replaced_name(made) if made is not None else None
            if replaced:
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
                found += [Installed(name, replaced) for name in names]
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                made = _patch_call(item.context_expr)
                replaced = _replaced_name(made) if made is not None else None
                if replaced and isinstance(item.optional_vars, ast.Name):
                    found.append(Installed(item.optional_vars.id, replaced))
    return found


def handed_among_keys(test: Def) -> dict[str, set[str]]:
    """The test's locals it put as a value in a dict literal of string keys, each with the
    other keys of that literal (`{'interval_start': 0, 'errback': errback}`: errback ->
    {'interval_start'}): options handed to our code together."""
    found: dict[str, set[str]] = {}
    for node in ast.walk(test):
        if not isinstance(node, ast.Dict):
            continue
        keys = [text for k in node.keys if (text := _text(k)) is not None]
        if len(keys) != len(node.keys):
            continue
        for key, value in zip(keys, node.values):
            if isinstance(value, ast.Name):
                found.setdefault(value.id, set()).update(k for k in keys if k != key)
    return found


def calls_name(found: Def, name: str) -> bool:
    """The def calls something by this name (`name(...)`, `module.name(...)`)."""
    return any(
        isinstance(node, ast.Call) and name_of(node.func) == name for node in ast.walk(found)
    )


def reads_keys(found: Def, keys: set[str]) -> bool:
    """The def reads one of these string keys off a mapping (`opts['k']`, `'k' in opts`,
    `opts.get('k')`)."""
    return any(_read_key(node) in keys for node in ast.walk(found))


def _read_key(node: ast.AST) -> object:
    """The constant key a node reads off a mapping, or None."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return node.slice.value
    if isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.In, ast.NotIn)):
        return node.left.value if isinstance(node.left, ast.Constant) else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
        first = node.args[0]
        if node.func.attr in {"get", "pop", "setdefault"} and isinstance(first, ast.Constant):
            return first.value
    return None


def checked_in_double(failure: Failure, root: str, tests: TestFiles) -> tuple[Frame, Frame] | None:
    """An assert in a def of the test's files that our code called (the test's fake, handed
    in or patched over a name) failed: in the failure's frames or in an exception it was
    raised while handling or from (`Unresolvable` from an `AssertionError` in `fake_urlopen`).
    The innermost frame of ours above the fake's, and the fake's frame; None otherwise."""
    test_name = failure.id.rsplit("::", 1)[-1].split("[", 1)[0]
    stacks = [(failure.exc_type, failure.frames)]
    stacks += [(chained.exc_type, chained.frames) for chained in failure.chain]
    for exc_type, frames in stacks:
        if exc_type.rsplit(".", 1)[-1] != "AssertionError":
            continue
        ours = [f for f in frames if is_workspace_file(f.path, root)]
        if len(ours) < 2 or ours[-1].path not in tests or ours[-2].path in tests:
            continue
        if ours[-1].function != test_name:  # not the test itself, run by a runner of ours
            return ours[-2], ours[-1]
    return None


def _replaced_name(call: ast.Call) -> str | None:
    called = _patcher(call)
    if called is None or not call.args:
        return None
    if called == "object" or (called in _SETTERS and len(call.args) >= 3):
        return _text(call.args[1]) if len(call.args) >= 2 else None
    target = _text(call.args[0])
    return target.rsplit(".", 1)[-1] if target is not None and "." in target else None


def _new_positional(call: ast.Call) -> bool:
    """The replacement is the last positional argument: after the target and the name
    (`setattr(t, "n", new)`, `patch.object(t, "n", new)`) or the dotted target alone."""
    called = _patcher(call)
    takes_name = called == "object" or (called in _SETTERS and len(call.args) >= 3)
    return len(call.args) == (3 if takes_name else 2)


def _patch_call(node: ast.expr) -> ast.Call | None:
    """The patch call an expression makes or starts (`patch(...)`, `patch(...).start()`)."""
    called = node.func if isinstance(node, ast.Call) else None
    if isinstance(called, ast.Attribute) and called.attr == "start":
        node = called.value
    if isinstance(node, ast.Call) and _patcher(node) in _PATCHERS:
        return node
    return None


def _patcher(call: ast.Call) -> str | None:
    """ "setattr", "patch" or "object" (of `patch.object`) when the call installs a value."""
    called = name_of(call.func)
    if called == "object":
        owner = call.func.value if isinstance(call.func, ast.Attribute) else None
        return called if owner is not None and name_of(owner) == "patch" else None
    return called if called in _SETTERS | _PATCHERS else None


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _text(node: ast.expr | None) -> str | None:
    """A string constant's text, or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None
