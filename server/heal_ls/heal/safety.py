"""Safety rails: refuse candidates that add dangerous capabilities or weaken the tests.

Checked on the AST before anything runs. A candidate may keep what the original function already
used (a function that shells out may go on doing so); it may not ADD: dynamic code (eval, exec,
compile, __import__), processes, shells, sockets, native calls, file-tree deletion, interpreter
escapes (__globals__, __builtins__, __subclasses__, __code__, frame walking), or ways to make
a test stop counting (pytest.skip / xfail / importorskip / exit, detecting the test run), or to
make a run look passed (see `verification_tampering`). Edits to test files are refused unless
allowed: the tests are the spec. Each refusal is a reason that can go back to the model.
"""

from __future__ import annotations

import ast
import os
from fnmatch import fnmatchcase

from heal_ls.heal.tampering import (
    IsLocal,
    dotted_name,
    imported_names,
    judge_tampering,
    verification_tampering,
)
from heal_ls.locate import is_test_file  # the one definition, owned by locate
from heal_ls.pysource.parse import describe_syntax_error, parse_block

_BUILTINS = {
    "eval": "runs code from a string",
    "exec": "runs code from a string",
    "compile": "compiles code from a string",
    "__import__": "imports modules dynamically",
    "__builtins__": "reaches into the interpreter's builtins",
}
_MODULES = {
    "subprocess": "starts processes",
    "socket": "opens network connections",
    "ctypes": "calls native code",
    "importlib": "imports modules dynamically",
    "pty": "starts processes",
    "builtins": "reaches into the interpreter's builtins",
    "pytest": "makes code under test depend on the test framework",
}
_DOTTED = {
    "os.system": "runs shell commands",
    "os.popen": "runs shell commands",
    "os.exec*": "replaces the process",
    "os.spawn*": "starts processes",
    "os.fork*": "starts processes",
    "os.kill*": "sends signals to processes",
    "os._exit": "kills the test process",
    "shutil.rmtree": "deletes directory trees",
    "pytest.skip": "skips the test instead of fixing the code",
    "pytest.xfail": "marks the test as expected to fail instead of fixing the code",
    "pytest.importorskip": "skips the test instead of fixing the code",
    "pytest.exit": "stops the test run",
    "pytest.mark.skip*": "skips the test instead of fixing the code",
    "pytest.mark.xfail": "marks the test as expected to fail instead of fixing the code",
    "unittest.skip*": "skips the test instead of fixing the code",
    "sys._getframe": "reads or changes other frames' variables",
    "inspect.currentframe": "reads or changes other frames' variables",
    "inspect.stack": "reads or changes other frames' variables",
    "inspect.getouterframes": "reads or changes other frames' variables",
}
_BARE = {"system": "os.system", "popen": "os.popen", "rmtree": "shutil.rmtree"}
_ATTRS = {
    "__globals__": "reaches into a function's globals",
    "__builtins__": "reaches into the interpreter's builtins",
    "__subclasses__": "walks the class hierarchy to escape",
    "__code__": "rewrites function code objects",
    "f_back": "reads or changes other frames' variables",
    "f_locals": "reads or changes other frames' variables",
    "f_globals": "reads or changes other frames' variables",
}
_TEST_RUN_STRINGS = ("PYTEST_CURRENT_TEST", "pytest", "_pytest")

# Ways around the names above, seen in practice (issue 11). Like every rail, a first filter that
# keeps honest candidates honest; the sandbox (heal_ls.testing.sandbox) is the boundary.
_ESCAPE_MODULES = {
    "multiprocessing": "starts processes",
    "pickle": "runs code hidden in data (pickle.loads)",
    "marshal": "loads code objects from data",
    "shelve": "runs code hidden in data (pickle)",
}
_ESCAPE_DOTTED = {
    "os.posix_spawn*": "starts processes",
    "os.setsid": "detaches a process from the test run",
    "asyncio.create_subprocess_*": "starts processes",
    "concurrent.futures.ProcessPoolExecutor": "starts processes",
    "operator.methodcaller": "calls methods by name to get around these checks",
    "operator.attrgetter": "reaches attributes by name to get around these checks",
    "sys.modules": "reaches modules by name to get around these checks",
}
_ESCAPE_BUILTINS = {
    "globals": "reaches the module's globals (and through them the builtins)",
    "vars": "reaches a namespace by name to get around these checks",
}
_MODULES.update(_ESCAPE_MODULES)
_DOTTED.update(_ESCAPE_DOTTED)
_BUILTINS.update(_ESCAPE_BUILTINS)


# Test-only switch (tests/e2e/test_sandbox_escapes.py): run hostile candidates with the rails off,
# so the tests prove the sandbox is the boundary. Never set it outside those tests.
RAILS_OFF_ENV = "HEAL_LS_TESTING_RAILS_OFF"


class UnsafeCandidate(Exception):
    """The candidate may not run; str(err) is the reason, fit to send back to the model."""


def check_candidate(
    original_function: str,
    new_function: str,
    path: str,
    allow_test_edits: bool = False,
    vouched: frozenset[str] = frozenset(),
) -> None:
    """Raise UnsafeCandidate if the candidate edits a test file or adds a dangerous capability;
    `vouched`: labels the failure itself asks for (`def __hash__` when Python said the class is
    unhashable: heal/member.py)."""
    if not allow_test_edits and is_test_file(path):
        raise UnsafeCandidate(
            f"`{os.path.basename(path)}` is a test file and tests are the spec; "
            "fix the code under test instead"
        )
    try:
        _, tree = parse_block(_lf(new_function))
    except SyntaxError as err:
        raise UnsafeCandidate(
            f"the candidate does not parse: {describe_syntax_error(err)}"
        ) from err
    if os.environ.get(RAILS_OFF_ENV) == "1":
        return  # test-only: the sandbox, not the rails, is under test
    added = {label: why for label, why in capabilities(tree).items() if label not in vouched}
    try:
        for label in capabilities(parse_block(_lf(original_function))[1]):
            added.pop(label, None)
    except SyntaxError:
        pass  # an unparsable original allows nothing
    if added:
        uses = "; ".join(f"`{label}` ({why})" for label, why in sorted(added.items()))
        raise UnsafeCandidate(
            f"the candidate adds {uses}, which the original function did not use; "
            "fix the logic in plain Python instead"
        )


def capabilities(tree: ast.AST) -> dict[str, str]:
    """Every guarded capability the code uses: label -> why it is guarded."""
    aliases = _import_aliases(tree)
    is_local = _local_names(tree, aliases)
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for full in imported_names(node):
                found.update(_judge(full))
        elif isinstance(node, ast.Name) and not is_local(node):
            found.update(_judge(aliases.get(node.id, node.id)))
            if node.id in _BARE and node.id not in aliases:
                found.update(_judge(_BARE[node.id]))
        elif isinstance(node, ast.Attribute):
            dotted = dotted_name(node, aliases, is_local)
            if dotted:
                found.update(_judge(dotted))
            if node.attr in _ATTRS:
                found[node.attr] = _ATTRS[node.attr]
        elif isinstance(node, ast.Constant) and _names_the_test_run(node.value):
            found[repr(node.value)] = "detects the test run to special-case it"
        elif isinstance(node, ast.Call) and _is_getattr_of_guarded(node):
            name = node.args[1].value  # type: ignore[attr-defined]
            found[f"getattr(..., {name!r})"] = "reaches a guarded attribute by name"
    found.update(verification_tampering(tree, aliases, is_local))
    return found


def import_risk(dotted: str) -> tuple[str, str] | None:
    """(label, why) when importing `dotted` (a module or module.name) would add a guarded
    capability; None when it is harmless. Used for the imports a fix adds to a module."""
    found = _judge(dotted) | judge_tampering(dotted)
    return next(iter(sorted(found.items())), None)


# --- ways to make a test run LOOK passed (issue 10): the verification's own rails ---------------
# A fix must change what the function computes, not how the test run reports it. These refuse
# what a candidate could use to skip, end or forge the run, or to pass an equality check by
# construction. Kept in this block so other rails (sandbox escapes) merge without conflicts.


def _judge(dotted: str) -> dict[str, str]:
    """The guarded labels a dotted name (like "os.system" or "subprocess.run") falls under."""
    found = {}
    if dotted in _BUILTINS:
        found[dotted] = _BUILTINS[dotted]
    top = dotted.split(".")[0]
    if top in _MODULES:
        found[top] = _MODULES[top]
    for pattern, why in _DOTTED.items():
        if fnmatchcase(dotted, pattern) or fnmatchcase(dotted, pattern + ".*"):
            found[pattern.rstrip("*")] = why
    return found


def _import_aliases(tree: ast.AST) -> dict[str, str]:
    """Local name -> full dotted name, for imports written inside the function."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                aliases[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom):
            for alias, full in zip(node.names, imported_names(node)):
                aliases[alias.asname or alias.name] = full
    return aliases


def _local_names(tree: ast.AST, aliases: dict[str, str]) -> IsLocal:
    """A test for Name nodes that refer to the function's own variables, not to a module global.

    Python makes a name local to the whole function once it is bound anywhere in it (so a variable
    called `socket` is not the module), except where it is declared global and in default values
    and decorators, which are evaluated outside the function.
    """
    bound: set[str] = set()
    declared: set[str] = set()
    outside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
            evaluated_outside: list[ast.expr | None] = [*node.decorator_list]
            if not isinstance(node, ast.ClassDef):
                evaluated_outside += [*node.args.defaults, *node.args.kw_defaults]
            outside.update(id(n) for expr in evaluated_outside if expr for n in ast.walk(expr))
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
    local = bound - declared - set(aliases)
    return lambda name: name.id in local and id(name) not in outside


def _is_getattr_of_guarded(call: ast.Call) -> bool:
    if not (isinstance(call.func, ast.Name) and call.func.id in ("getattr", "setattr")):
        return False
    if len(call.args) < 2 or not isinstance(call.args[1], ast.Constant):
        return False
    name = call.args[1].value
    return isinstance(name, str) and (name in _ATTRS or name in _BARE or name in _BUILTINS)


def _names_the_test_run(value: object) -> bool:
    return isinstance(value, str) and (value in _TEST_RUN_STRINGS or "PYTEST_CURRENT_TEST" in value)


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")
