"""Rails against a candidate that tampers with verification itself: pytest's report
objects, heal-ls's plugin, outcomes, always-equal objects."""

from __future__ import annotations

import ast
import pkgutil
from collections.abc import Callable

from heal_ls.pysource.parse import DEF_TYPES
from heal_ls.testing import agent

IsLocal = Callable[[ast.Name], bool]  # does this name refer to the function's own variable?

_TAMPER_MODULES = {
    "_pytest": "reaches into pytest's internals to change how the test run reports",
    "unittest": "skips or fakes tests (unittest.SkipTest, unittest.mock) instead of fixing the code",
    "mock": "fakes objects instead of fixing the code",
    "pluggy": "reaches into pytest's plugin machinery",
    "heal_ls": "tampers with heal-ls itself",
    "gc": "finds and changes live objects of the test run",
    "signal": "sends or handles signals that stop the test run",
    "faulthandler": "changes how the test process reports crashes",
    "atexit": "runs code when the test process ends",
}

# heal-ls's own modules that run beside the tests (plugin, reporter, warm runner), read from
# the folder they ship in so a new one is never missing from the list.
_TAMPER_MODULES |= {
    module.name: "tampers with heal-ls's test reporter or runner"
    for module in pkgutil.iter_modules(agent.__path__)
}


_TAMPER_DOTTED = {
    "sys.modules": "reaches loaded modules (pytest's, heal-ls's) to change them",
    "sys.exit": "ends the test run instead of fixing the code",
    "sys.settrace": "changes the interpreter's tracing",
    "sys.setprofile": "changes the interpreter's tracing",
    "sys.excepthook": "changes how errors are reported",
    "os.abort": "kills the test process",
    "os.environ": "reads or changes the test run's environment",
    "os.getenv": "reads the test run's environment",
}


_TAMPER_NAMES = {
    "KeyboardInterrupt": "interrupts the test run",
    "SystemExit": "ends the test run",
    "BaseException": "catches or raises the test run's own interruptions",
    "__heal_ls_hit__": "tampers with heal-ls's function coverage",
    "monkeypatch": "monkeypatches instead of fixing the code",
    "globals": "reads or changes module globals by name",
    "setattr": "sets attributes by name (monkeypatching)",
    "delattr": "deletes attributes by name (monkeypatching)",
}


# Dunder names a fix may use freely: reading metadata, not redefining behaviour.
_PLAIN_DUNDERS = {"__name__", "__qualname__", "__doc__", "__module__", "__file__", "__init__"}


def verification_tampering(
    tree: ast.AST, aliases: dict[str, str], is_local: IsLocal
) -> dict[str, str]:
    """Labels of everything in the code that could make a test run look passed without a fix."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            found["class definition"] = "defines a class (a fake object that compares equal)"
        elif isinstance(node, DEF_TYPES) and _is_dunder(node.name):
            found[f"def {node.name}"] = "defines a special method (__eq__, __bool__...)"
        elif isinstance(node, ast.Attribute) and _is_dunder(node.attr):
            found[f".{node.attr}"] = "uses a special method directly"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _is_dunder(node.value):
                found[repr(node.value)] = "names a special method"
            elif "HEAL_LS" in node.value:
                found[repr(node.value)] = "reads heal-ls's own settings"
        elif isinstance(node, ast.Name) and not is_local(node):
            name = aliases.get(node.id, node.id)
            found.update(judge_tampering(name))
            if node.id in _TAMPER_NAMES:
                found[node.id] = _TAMPER_NAMES[node.id]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for full in imported_names(node):
                found.update(judge_tampering(full))
        elif isinstance(node, ast.Attribute):
            dotted = dotted_name(node, aliases, is_local)
            if dotted:
                found.update(judge_tampering(dotted))
        if isinstance(node, ast.Call) and _is_type_creation(node):
            found["type(name, bases, dict)"] = "creates a class (a fake object that compares equal)"
        for target in _assigned_attributes(node):
            dotted = dotted_name(target, aliases, is_local)
            if dotted:
                found[f"{dotted} = ..."] = "monkeypatches a module or class attribute"
    return found


def judge_tampering(dotted: str) -> dict[str, str]:
    found = {}
    top = dotted.split(".")[0]
    if top in _TAMPER_MODULES:
        found[top] = _TAMPER_MODULES[top]
    for name, why in _TAMPER_DOTTED.items():
        if dotted == name or dotted.startswith(name + "."):
            found[name] = why
    return found


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name[:2] == name[-2:] == "__" and name not in _PLAIN_DUNDERS


def _is_type_creation(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Name) and call.func.id == "type" and len(call.args) == 3


def _assigned_attributes(node: ast.AST) -> list[ast.Attribute]:
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        targets = [node.target]
    elif isinstance(node, ast.Delete):
        targets = node.targets
    else:
        return []
    return [t for t in targets if isinstance(t, ast.Attribute)]


def imported_names(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    module = node.module or ""
    return [f"{module}.{alias.name}" if module else alias.name for alias in node.names]


def dotted_name(node: ast.expr, aliases: dict[str, str], is_local: IsLocal) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or is_local(node):
        return None
    parts.append(aliases.get(node.id, node.id))
    return ".".join(reversed(parts))
